// fastnode: a Fast DDS 2.9 peer that plays a ROS 2 node the way
// rmw_fastrtps does: services whose replies are paired with requests by
// related_sample_identity (PID 0x800f on the wire in 2.9), and the
// ros_discovery_info graph. Built by the Go package test/ddspeers
// (BuildNodes) from fastddsgen's output for the node types and the graph
// types of both Gid sizes. Usage: see README.md.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <array>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fastcdr/Cdr.h>
#include <fastcdr/FastBuffer.h>
#include <fastcdr/exceptions/Exception.h>
#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/DataWriterListener.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/topic/TopicDataType.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>

#include "fastcompat.hpp"
#if FASTDDS3
#include "nodetypes.hpp"
#include "nodetypesPubSubTypes.hpp"
#else
#include "nodetypes.h"
#include "nodetypesPubSubTypes.h"
#endif
#include "nodehashes.h" // type_hashes: RIHS01 of each type, by DDS name

// vendor_word starts each Trigger reply's message, so that a test knows
// which stack answered.
#if FASTDDS3
static const char *const vendor_word = "fastdds3";
#else
static const char *const vendor_word = "fastdds";
#endif

using namespace eprosima::fastdds::dds;
using fdrtps::GUID_t;
using fdrtps::SampleIdentity;
using fdrtps::SerializedPayload_t;
using fdrtps::WriteParams;

[[noreturn]] static void die(const std::string &msg)
{
    std::cerr << "fastnode: " << msg << std::endl;
    std::exit(2);
}

// malformed rejects a frame that is not what rmw_fastrtps would send:
// tests look for the MALFORMED line and the exit status.
[[noreturn]] static void malformed(const std::string &why)
{
    std::cerr << "MALFORMED: " << why << std::endl;
    std::exit(3);
}

static volatile std::sig_atomic_t stopping;

extern "C" void on_signal(int) { stopping = 1; }

using Clock = std::chrono::steady_clock;

static Clock::time_point after(double s)
{
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

static void nap(double s)
{
    auto end = after(s);
    while (!stopping && Clock::now() < end)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

// Options of every mode; see README.md.
struct Opts
{
    std::string service, node, ns = "/";
    std::vector<std::string> pubs, subs;
    int count = 0, gid_size = 16;
    bool typehash = false;
    double lease = 0;
    uint32_t domain = 0;
    // --peer A:P, --participant-id N: discovery at exactly that port, no
    // multicast, at index N (a test's relay stands between).
    std::string peer;
    int participant_id = -1;
    double timeout = 30, linger = 1, reply_wait = 0.1;
    // action-server's script
    std::string action, outcome = "succeed";
    bool reject_goals = false, reject_cancels = false, preempt_canceled = false;
    int feedback = 3;
    double feedback_period = 0.1, result_timeout = 10;
    // action-client's script
    std::string goals, joints = "j1,j2", cancel;
    int cancel_after = 1, points = 1;
    double gap = 0, result_delay = 0;
    bool no_result = false;
    // param-server's table and param-client's calls
    std::vector<std::string> params, readonly, calls;
    int events = 0;
};

// choice returns false for the first of two words, true for the second.
static bool choice(const std::string &v, const char *first, const char *second, const std::string &flag)
{
    if (v == first)
        return false;
    if (v != second)
        die(flag + " is " + first + " or " + second);
    return true;
}

static Opts parse_opts(int argc, char **argv)
{
    Opts o;
    auto num = [&](int &i) {
        if (i + 1 >= argc)
            die(std::string(argv[i]) + " needs a value");
        char *end;
        double v = std::strtod(argv[++i], &end);
        if (*end || v < 0)
            die(std::string("bad value for ") + argv[i - 1]);
        return v;
    };
    for (int i = 2; i < argc; i++)
    {
        std::string a = argv[i];
        bool more = i + 1 < argc;
        if (a == "--service" && more) o.service = argv[++i];
        else if (a == "--node" && more) o.node = argv[++i];
        else if (a == "--namespace" && more) o.ns = argv[++i];
        else if (a == "--pub" && more) o.pubs.push_back(argv[++i]);
        else if (a == "--sub" && more) o.subs.push_back(argv[++i]);
        else if (a == "--count") o.count = int(num(i));
        else if (a == "--typehash") o.typehash = true;
        else if (a == "--lease") o.lease = num(i);
        else if (a == "--gid-size") o.gid_size = int(num(i));
        else if (a == "--domain") o.domain = uint32_t(num(i));
        else if (a == "--peer" && more) o.peer = argv[++i];
        else if (a == "--participant-id") o.participant_id = int(num(i));
        else if (a == "--timeout") o.timeout = num(i);
        else if (a == "--linger") o.linger = num(i);
        else if (a == "--reply-wait") o.reply_wait = num(i);
        else if (a == "--action" && more) o.action = argv[++i];
        else if (a == "--goal" && more) o.reject_goals = choice(argv[++i], "accept", "reject", a);
        else if (a == "--cancel" && more) o.reject_cancels = choice(argv[++i], "accept", "reject", a);
        else if (a == "--preempt" && more) o.preempt_canceled = choice(argv[++i], "aborted", "canceled", a);
        else if (a == "--outcome" && more) o.outcome = argv[++i];
        else if (a == "--feedback") o.feedback = int(num(i));
        else if (a == "--feedback-period") o.feedback_period = num(i);
        else if (a == "--result-timeout") o.result_timeout = num(i);
        else if (a == "--goals" && more) o.goals = argv[++i];
        else if (a == "--joints" && more) o.joints = argv[++i];
        else if (a == "--cancel-goal" && more) o.cancel = argv[++i];
        else if (a == "--cancel-after") o.cancel_after = int(num(i));
        else if (a == "--gap") o.gap = num(i);
        else if (a == "--result-delay") o.result_delay = num(i);
        else if (a == "--no-result") o.no_result = true;
        else if (a == "--points") o.points = int(num(i));
        else if (a == "--param" && more) o.params.push_back(argv[++i]);
        else if (a == "--read-only" && more) o.readonly.push_back(argv[++i]);
        else if (a == "--call" && more) o.calls.push_back(argv[++i]);
        else if (a == "--events") o.events = int(num(i));
        else die("unknown option " + a);
    }
    if (o.gid_size != 16 && o.gid_size != 24)
        die("--gid-size is 16 (Jazzy and later) or 24 (Humble)");
    if (o.outcome != "succeed" && o.outcome != "abort" && o.outcome != "hold")
        die("--outcome is succeed, abort or hold");
    return o;
}

// ---- JSON output ----

static std::string json_str(const std::string &s)
{
    std::string out = "\"";
    for (unsigned char c : s)
    {
        if (c == '"' || c == '\\')
            out += std::string("\\") + char(c);
        else if (c < 0x20)
        {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            out += b;
        }
        else
            out += char(c);
    }
    return out + "\"";
}

static std::string hex(const uint8_t *b, size_t n)
{
    std::string out;
    char h[3];
    for (size_t i = 0; i < n; i++)
    {
        std::snprintf(h, sizeof h, "%02x", b[i]);
        out += h;
    }
    return out;
}

static std::string guid_hex(const GUID_t &g)
{
    uint8_t b[16];
    std::memcpy(b, g.guidPrefix.value, 12);
    std::memcpy(b + 12, g.entityId.value, 4);
    return "\"" + hex(b, 16) + "\"";
}

// ---- raw frames ----

// A RawType reader hands over each payload as it came, so that the peer
// checks every frame itself (decode) where Fast DDS would drop one it
// cannot deserialize without a word.
struct RawSample
{
    std::vector<uint8_t> bytes;
};

class RawType : public TopicDataType
{
public:
#if FASTDDS3
    explicit RawType(const std::string &name)
    {
        set_name(name.c_str());
        max_serialized_type_size = 64 * 1024;
        is_compute_key_provided = false;
    }
    bool serialize(const void *const data, SerializedPayload_t &p, eprosima::fastdds::dds::DataRepresentationId_t) override
    {
        return put(static_cast<const RawSample *>(data), &p);
    }
    bool deserialize(SerializedPayload_t &p, void *data) override { return get(&p, data); }
    uint32_t calculate_serialized_size(const void *const data, eprosima::fastdds::dds::DataRepresentationId_t) override
    {
        return uint32_t(static_cast<const RawSample *>(data)->bytes.size());
    }
    void *create_data() override { return new RawSample(); }
    void delete_data(void *data) override { delete static_cast<RawSample *>(data); }
    bool compute_key(SerializedPayload_t &, fdrtps::InstanceHandle_t &, bool) override { return false; }
    bool compute_key(const void *const, fdrtps::InstanceHandle_t &, bool) override { return false; }
#else
    explicit RawType(const std::string &name)
    {
        setName(name.c_str());
        m_typeSize = 64 * 1024;
        m_isGetKeyDefined = false;
    }
    bool serialize(void *data, SerializedPayload_t *p) override { return put(static_cast<const RawSample *>(data), p); }
    bool deserialize(SerializedPayload_t *p, void *data) override { return get(p, data); }
    std::function<uint32_t()> getSerializedSizeProvider(void *data) override
    {
        return [data] { return uint32_t(static_cast<RawSample *>(data)->bytes.size()); };
    }
    void *createData() override { return new RawSample(); }
    void deleteData(void *data) override { delete static_cast<RawSample *>(data); }
    bool getKey(void *, fdrtps::InstanceHandle_t *, bool) override { return false; }
#endif

private:
    static bool put(const RawSample *s, SerializedPayload_t *p)
    {
        if (s->bytes.size() > p->max_size)
            return false;
        std::memcpy(p->data, s->bytes.data(), s->bytes.size());
        p->length = uint32_t(s->bytes.size());
        return true;
    }
    static bool get(const SerializedPayload_t *p, void *data)
    {
        static_cast<RawSample *>(data)->bytes.assign(p->data, p->data + p->length);
        return true;
    }
};

// decode checks that a raw frame is one plain-CDR sample of T, nothing
// more, and reads it into out; anything else is MALFORMED.
template <class T>
static void decode(const RawSample &raw, T &out, const std::string &what)
{
    const auto &b = raw.bytes;
    if (b.size() < 4)
        malformed(what + ": " + std::to_string(b.size()) + " bytes, no encapsulation header");
    if (b[0] != 0 || b[1] > 1)
        malformed(what + ": encapsulation " + hex(b.data(), 2) + " is not plain CDR");
    eprosima::fastcdr::FastBuffer fb(reinterpret_cast<char *>(const_cast<uint8_t *>(b.data())), b.size());
    eprosima::fastcdr::Cdr d(fb, eprosima::fastcdr::Cdr::DEFAULT_ENDIAN, CDR_MODE);
    try
    {
        d.read_encapsulation();
        cdr_read(d, out);
    }
    catch (const std::exception &e)
    {
        malformed(what + ": a " + std::to_string(b.size() - 4) + "-byte payload that does not decode" + " (" + e.what() + ")");
    }
    size_t left = b.size() - cdr_len(d);
    if (left > 3)
        malformed(what + ": " + std::to_string(left) + " bytes left after the sample");
}

// ---- the participant and the graph ----

static DomainParticipant *make_participant(const Opts &o)
{
    // UDPv4 only: no shared memory, so that every frame crosses the wire.
    DomainParticipantQos pq = PARTICIPANT_QOS_DEFAULT;
    pq.transport().use_builtin_transports = false;
    pq.transport().user_transports.push_back(std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>());
    // rmw's participants say enclave=/; (rmw_fastrtps participant.cpp).
    std::string ud = "enclave=/;";
    pq.user_data().data_vec(std::vector<fdrtps::octet>(ud.begin(), ud.end()));
    // --lease: the participant's lease (Fast DDS's default is 20 s), so a
    // test sees a killed peer dropped sooner; announced three times in it.
    if (o.lease > 0)
    {
        auto &dc = pq.wire_protocol().builtin.discovery_config;
        dc.leaseDuration = FDuration(o.lease);
        dc.leaseDuration_announcementperiod = FDuration(o.lease / 3);
    }
    if (!o.peer.empty())
    {
        auto colon = o.peer.rfind(':');
        if (colon == std::string::npos)
            die("--peer is ADDRESS:PORT");
        fdrtps::Locator_t l;
        fdrtps::IPLocator::setIPv4(l, o.peer.substr(0, colon));
        l.port = uint32_t(std::strtoul(o.peer.c_str() + colon + 1, nullptr, 10));
        auto &b = pq.wire_protocol().builtin;
        b.initialPeersList.push_back(l);
        b.metatrafficMulticastLocatorList.clear();
        b.metatrafficUnicastLocatorList.push_back(fdrtps::Locator_t());
    }
    if (o.participant_id >= 0)
        pq.wire_protocol().participant_id = o.participant_id;
    DomainParticipant *pp = DomainParticipantFactory::get_instance()->create_participant(o.domain, pq);
    if (pp == nullptr)
        die("create participant failed");
    return pp;
}

template <class Q>
static void qos_reliable(Q &q, int depth, bool transient_local, bool keep_all)
{
    q.reliability().kind = RELIABLE_RELIABILITY_QOS;
    q.durability().kind = transient_local ? TRANSIENT_LOCAL_DURABILITY_QOS : VOLATILE_DURABILITY_QOS;
    q.history().kind = keep_all ? KEEP_ALL_HISTORY_QOS : KEEP_LAST_HISTORY_QOS;
    q.history().depth = depth;
    q.data_sharing().off();
    q.endpoint().history_memory_policy = fdrtps::DYNAMIC_REUSABLE_MEMORY_MODE;
}

// topic registers the type (once per name) and creates the topic.
static Topic *topic(DomainParticipant *pp, const std::string &name, TopicDataType *type)
{
    TypeSupport ts(type);
    if (pp->find_type(ts.get_type_name()).empty() && ts.register_type(pp) != RC_OK)
        die("register type " + ts.get_type_name() + " failed");
    Topic *t = pp->create_topic(name, ts.get_type_name(), TOPIC_QOS_DEFAULT);
    if (t == nullptr)
        die("create topic " + name + " failed");
    return t;
}

static const char *graph_type = "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_";

// with_typehash: endpoints carry typehash=RIHS01_…; in their user data, as
// rmw_fastrtps does since Iron (--typehash; Humble sends none).
static bool with_typehash;

// with_user_data sets an endpoint QoS's user data to typehash=…; for the
// topic's type when --typehash is on.
template <class Q>
static Q with_user_data(Q q, const Topic *t)
{
    if (!with_typehash)
        return q;
    for (const auto &th : type_hashes)
        if (t->get_type_name() == th[0])
        {
            std::string ud = std::string("typehash=") + th[1] + ";";
            q.user_data().data_vec(std::vector<fdrtps::octet>(ud.begin(), ud.end()));
            return q;
        }
    die("no type hash for " + t->get_type_name());
}

static DataWriter *make_writer(Publisher *pub, Topic *t, const DataWriterQos &q, DataWriterListener *l = nullptr)
{
    DataWriter *w = pub->create_datawriter(t, with_user_data(q, t), l);
    if (w == nullptr)
        die("create writer on " + t->get_name() + " failed");
    return w;
}

static DataReader *make_reader(Subscriber *sub, Topic *t, const DataReaderQos &q)
{
    DataReader *r = sub->create_datareader(t, with_user_data(q, t));
    if (r == nullptr)
        die("create reader on " + t->get_name() + " failed");
    return r;
}

template <class TypeT>
static TypeT *named(const char *name)
{
    auto *t = new TypeT();
    set_type_name(t, name);
    return t;
}

static GUID_t guid_of(const DomainParticipant *pp) { return pp->guid(); }

template <class Gid>
static Gid gid_from(const GUID_t &g)
{
    Gid gid;
    auto &d = gid.data();
    d.fill(0);
    std::memcpy(d.data(), g.guidPrefix.value, 12);
    std::memcpy(d.data() + 12, g.entityId.value, 4);
    return gid;
}

// A node's endpoints as ros_discovery_info lists them.
struct NodeEps
{
    std::vector<GUID_t> readers, writers;
};

template <class PEI>
static std::string graph_json(const PEI &m)
{
    std::string s = "{\"gid\":\"" + hex(m.gid().data().data(), m.gid().data().size()) + "\",\"nodes\":[";
    bool first = true;
    for (const auto &n : m.node_entities_info_seq())
    {
        s += first ? "" : ",";
        first = false;
        s += "{\"namespace\":" + json_str(n.node_namespace().to_string()) + ",\"name\":" + json_str(n.node_name().to_string()) + ",\"readers\":[";
        for (size_t i = 0; i < n.reader_gid_seq().size(); i++)
            s += (i ? ",\"" : "\"") + hex(n.reader_gid_seq()[i].data().data(), n.reader_gid_seq()[i].data().size()) + "\"";
        s += "],\"writers\":[";
        for (size_t i = 0; i < n.writer_gid_seq().size(); i++)
            s += (i ? ",\"" : "\"") + hex(n.writer_gid_seq()[i].data().data(), n.writer_gid_seq()[i].data().size()) + "\"";
        s += "]}";
    }
    return s + "]}";
}

// announce publishes the node on ros_discovery_info (reliable,
// transient_local, keep last 1, as rmw does) and prints what it sent.
template <class PEI, class PEIType, class Node, class Gid>
static void announce(DomainParticipant *pp, const Opts &o, const NodeEps &eps)
{
    Topic *t = topic(pp, "ros_discovery_info", named<PEIType>(graph_type));
    DataWriterQos wq = DATAWRITER_QOS_DEFAULT;
    qos_reliable(wq, 1, true, false);
    DataWriter *w = make_writer(pp->create_publisher(PUBLISHER_QOS_DEFAULT), t, wq);
    if (w == nullptr)
        die("create ros_discovery_info writer failed");
    PEI m;
    m.gid(gid_from<Gid>(guid_of(pp)));
    Node n;
    n.node_namespace(o.ns);
    n.node_name(o.node);
    for (const auto &g : eps.readers)
        n.reader_gid_seq().push_back(gid_from<Gid>(g));
    for (const auto &g : eps.writers)
        n.writer_gid_seq().push_back(gid_from<Gid>(g));
    m.node_entities_info_seq().push_back(n);
    if (!write_ok(w, &m))
        die("write ros_discovery_info failed");
    std::cout << graph_json(m) << std::endl;
}

namespace g16 = rmw_dds_common_gid16::msg::dds_;
namespace g24 = rmw_dds_common_gid24::msg::dds_;

static void announce_node(DomainParticipant *pp, const Opts &o, const NodeEps &eps)
{
    if (o.node.empty())
        return;
    if (o.gid_size == 24)
        announce<g24::ParticipantEntitiesInfo_, g24::ParticipantEntitiesInfo_PubSubType, g24::NodeEntitiesInfo_, g24::Gid_>(pp, o, eps);
    else
        announce<g16::ParticipantEntitiesInfo_, g16::ParticipantEntitiesInfo_PubSubType, g16::NodeEntitiesInfo_, g16::Gid_>(pp, o, eps);
    std::cerr << "fastnode: announced " << o.node << std::endl;
}

template <class PEI>
static void graph_loop(DataReader *r, const Opts &o)
{
    int got = 0;
    while (!stopping && (o.count == 0 || got < o.count))
    {
        RawSample raw;
        SampleInfo info;
        if (r->take_next_sample(&raw, &info) != RC_OK)
        {
            r->wait_for_unread_message(FDuration(0, 50000000));
            continue;
        }
        if (!info.valid_data)
            continue;
        PEI m;
        decode(raw, m, "ros_discovery_info (Gid of " + std::to_string(o.gid_size) + " bytes)");
        std::cout << graph_json(m) << std::endl;
        got++;
    }
}

// graph: prints each ros_discovery_info sample as a JSON line.
static int graph(DomainParticipant *pp, const Opts &o)
{
    Topic *t = topic(pp, "ros_discovery_info", new RawType(graph_type));
    DataReaderQos rq = DATAREADER_QOS_DEFAULT;
    qos_reliable(rq, 1, true, true);
    DataReader *r = make_reader(pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT), t, rq);
    if (r == nullptr)
        die("create ros_discovery_info reader failed");
    std::cerr << "fastnode: ready" << std::endl;
    if (o.gid_size == 24)
        graph_loop<g24::ParticipantEntitiesInfo_>(r, o);
    else
        graph_loop<g16::ParticipantEntitiesInfo_>(r, o);
    return 0;
}

static int announce_mode(DomainParticipant *pp, const Opts &o)
{
    if (o.node.empty())
        die("announce needs --node");
    NodeEps eps;
    DataWriterQos wq = DATAWRITER_QOS_DEFAULT;
    qos_reliable(wq, 10, false, false);
    DataReaderQos rq = DATAREADER_QOS_DEFAULT;
    qos_reliable(rq, 10, false, false);
    Publisher *pub = pp->create_publisher(PUBLISHER_QOS_DEFAULT);
    Subscriber *sub = pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT);
    for (const auto &name : o.pubs)
    {
        DataWriter *w = make_writer(pub, topic(pp, name, new std_msgs::msg::dds_::String_PubSubType()), wq);
        if (w == nullptr)
            die("create writer failed");
        eps.writers.push_back(w->guid());
    }
    for (const auto &name : o.subs)
    {
        DataReader *r = make_reader(sub, topic(pp, name, new std_msgs::msg::dds_::String_PubSubType()), rq);
        if (r == nullptr)
            die("create reader failed");
        eps.readers.push_back(r->guid());
    }
    announce_node(pp, o, eps);
    while (!stopping)
        nap(1);
    return 0;
}

// ---- services in rmw_fastrtps's dialect ----

// MatchedReaders tracks the readers a writer has matched, by GUID, as
// rmw_fastrtps's service listener does to wait for a client's reader.
class MatchedReaders : public DataWriterListener
{
public:
    void on_publication_matched(DataWriter *, const PublicationMatchedStatus &info) override
    {
        GUID_t g = fdrtps::iHandle2GUID(info.last_subscription_handle);
        std::lock_guard<std::mutex> lock(mu_);
        if (info.current_count_change > 0)
            guids_.insert(g);
        else if (info.current_count_change < 0)
            guids_.erase(g);
    }
    bool has(const GUID_t &g)
    {
        std::lock_guard<std::mutex> lock(mu_);
        return guids_.count(g) > 0;
    }

private:
    std::mutex mu_;
    std::set<GUID_t> guids_;
};

static bool is_reader(const GUID_t &g)
{
    uint8_t kind = g.entityId.value[3];
    return kind == 0x04 || kind == 0x07 || kind == 0xc4 || kind == 0xc7;
}

static uint64_t sn64(const fdrtps::SequenceNumber_t &sn)
{
    return (uint64_t(uint32_t(sn.high)) << 32) | sn.low;
}

// Svc is a service's or a client's two endpoints: rq/<name>Request and
// rr/<name>Reply, services QoS (reliable, volatile, keep last 10). What it
// reads is raw (decode checks every frame).
struct Svc
{
    DataWriter *w = nullptr;
    DataReader *r = nullptr;
    MatchedReaders matched;
    bool server = false;
};

template <class ReqType, class RepType>
static void svc_open(Svc &s, DomainParticipant *pp, const std::string &service, bool server)
{
    s.server = server;
    std::string name = service[0] == '/' ? service.substr(1) : service;
    TopicDataType *req = new ReqType(), *rep = new RepType();
    std::string req_name = type_name(req), rep_name = type_name(rep);
    Topic *wt, *rt;
    if (server)
    {
        delete req;
        rt = topic(pp, "rq/" + name + "Request", new RawType(req_name));
        wt = topic(pp, "rr/" + name + "Reply", rep);
    }
    else
    {
        delete rep;
        wt = topic(pp, "rq/" + name + "Request", req);
        rt = topic(pp, "rr/" + name + "Reply", new RawType(rep_name));
    }
    DataWriterQos wq = DATAWRITER_QOS_DEFAULT;
    qos_reliable(wq, 10, false, false);
    DataReaderQos rq = DATAREADER_QOS_DEFAULT;
    qos_reliable(rq, 10, false, false);
    s.w = make_writer(pp->create_publisher(PUBLISHER_QOS_DEFAULT), wt, wq, &s.matched);
    s.r = make_reader(pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT), rt, rq);
    if (s.w == nullptr || s.r == nullptr)
        die("create service endpoints failed");
}

static void svc_eps(const Svc &s, NodeEps &eps)
{
    eps.readers.push_back(s.r->guid());
    eps.writers.push_back(s.w->guid());
}

static void wait_matched(Svc &s, double timeout)
{
    auto end = after(timeout);
    for (;;)
    {
        PublicationMatchedStatus p;
        SubscriptionMatchedStatus r;
        s.w->get_publication_matched_status(p);
        s.r->get_subscription_matched_status(r);
        if (p.current_count > 0 && r.current_count > 0)
            break;
        if (stopping)
            std::exit(0);
        if (Clock::now() > end)
            die(std::string("timed out waiting for the ") + (s.server ? "client" : "service"));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::cerr << "fastnode: matched" << std::endl;
}

// take_request takes the next request; it checks it is in rmw_fastrtps's
// dialect: a related_sample_identity naming a reader of the requesting
// participant (the client's reply reader), and a plain payload.
template <class Req>
static bool take_request(Svc &s, Req &req, SampleIdentity &reply_to)
{
    RawSample raw;
    SampleInfo info;
    while (s.r->take_next_sample(&raw, &info) == RC_OK)
    {
        if (!info.valid_data)
            continue;
        const GUID_t &rel = info.related_sample_identity.writer_guid();
        if (rel == GUID_t::unknown())
            malformed("request without related_sample_identity: rmw_fastrtps clients name their reply reader there (a Cyclone-dialect request?)");
        if (!is_reader(rel))
            malformed("request's related_sample_identity names " + guid_hex(rel) + ", not a reader: rmw_fastrtps names the client's reply reader");
        if (rel.guidPrefix != info.sample_identity.writer_guid().guidPrefix)
            malformed("request's related_sample_identity names a reader of another participant");
        decode(raw, req, "request");
        reply_to = SampleIdentity();
        reply_to.writer_guid(rel);
        reply_to.sequence_number(info.sample_identity.sequence_number());
        return true;
    }
    return false;
}

// reply writes a reply to the request identified by to, after waiting up
// to --reply-wait for the client's reader (named by to) to match, as rmw
// waits likewise; it returns false when it dropped the reply.
static bool reply(Svc &s, const Opts &o, const SampleIdentity &to, void *rep)
{
    auto end = after(o.reply_wait);
    while (!s.matched.has(to.writer_guid()) && Clock::now() < end)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!s.matched.has(to.writer_guid()))
    {
        std::cerr << "fastnode: reply dropped: the client's reader did not match in time" << std::endl;
        return false;
    }
    WriteParams wp;
    wp.related_sample_identity(to);
    if (!write_ok(s.w, rep, wp))
        die("write reply failed");
    return true;
}

// serve answers requests: handle fills the reply to each. It stops after
// --count requests (0: until stopped) or --timeout seconds without one.
template <class Req, class Rep>
static void serve(Svc &s, const Opts &o, const std::function<void(int, const Req &, Rep &)> &handle)
{
    auto deadline = after(o.timeout);
    int calls = 0;
    while (!stopping && (o.count == 0 || calls < o.count))
    {
        Req req;
        SampleIdentity to;
        if (!take_request(s, req, to))
        {
            s.r->wait_for_unread_message(FDuration(0, 5000000));
            if (o.timeout > 0 && Clock::now() > deadline)
                die("no request for " + std::to_string(o.timeout) + " s");
            continue;
        }
        calls++;
        Rep rep;
        handle(calls, req, rep);
        bool sent = reply(s, o, to, &rep);
        std::cout << "{\"call\":" << calls << ",\"client\":" << guid_hex(to.writer_guid()) << ",\"seq\":" << sn64(to.sequence_number())
                  << ",\"replied\":" << (sent ? "true" : "false") << "}" << std::endl;
        deadline = after(o.timeout);
    }
}

// call_idle, when set, runs while call waits (the action client takes
// feedback and status then).
static std::function<void()> call_idle;

// call sends a request naming the reply reader in related_sample_identity,
// as rmw_fastrtps does, and waits for the reply whose related identity is
// {that reader, the request's sequence number}; it returns that number.
template <class Req, class Rep>
static uint64_t call(Svc &s, const Opts &o, Req &req, Rep &rep)
{
    WriteParams wp;
    wp.related_sample_identity().writer_guid(s.r->guid());
    if (!write_ok(s.w, &req, wp))
        die("write request failed");
    SampleIdentity mine = wp.sample_identity();
    auto end = after(o.timeout);
    for (;;)
    {
        RawSample raw;
        SampleInfo info;
        if (s.r->take_next_sample(&raw, &info) == RC_OK)
        {
            if (!info.valid_data)
                continue;
            const SampleIdentity &rel = info.related_sample_identity;
            if (rel.writer_guid() == GUID_t::unknown())
                malformed("reply without related_sample_identity (a Cyclone-dialect reply?)");
            Rep r;
            decode(raw, r, "reply");
            if ((rel.writer_guid() == s.r->guid() || rel.writer_guid() == s.w->guid()) && rel.sequence_number() == mine.sequence_number())
            {
                rep = r;
                return sn64(mine.sequence_number());
            }
            continue;
        }
        if (stopping)
            std::exit(0);
        if (Clock::now() > end)
            die("no reply in " + std::to_string(o.timeout) + " s");
        if (call_idle)
            call_idle();
        s.r->wait_for_unread_message(FDuration(0, 5000000));
    }
}

// ---- std_srvs/srv/Trigger ----

namespace trig = std_srvs::srv::dds_;

static int trigger_server(DomainParticipant *pp, const Opts &o)
{
    Svc s;
    svc_open<trig::Trigger_Request_PubSubType, trig::Trigger_Response_PubSubType>(s, pp, o.service, true);
    NodeEps eps;
    svc_eps(s, eps);
    announce_node(pp, o, eps);
    std::cerr << "fastnode: ready" << std::endl;
    serve<trig::Trigger_Request_, trig::Trigger_Response_>(s, o, [](int n, const trig::Trigger_Request_ &, trig::Trigger_Response_ &rep) {
        rep.success(true);
        rep.message(std::string(vendor_word) + " call " + std::to_string(n));
    });
    nap(o.linger);
    return 0;
}

static int trigger_client(DomainParticipant *pp, const Opts &o)
{
    Svc s;
    svc_open<trig::Trigger_Request_PubSubType, trig::Trigger_Response_PubSubType>(s, pp, o.service, false);
    NodeEps eps;
    svc_eps(s, eps);
    announce_node(pp, o, eps);
    std::cerr << "fastnode: ready" << std::endl;
    wait_matched(s, o.timeout);
    int n = o.count > 0 ? o.count : 1;
    for (int i = 1; i <= n && !stopping; i++)
    {
        trig::Trigger_Request_ req;
        trig::Trigger_Response_ rep;
        uint64_t seq = call(s, o, req, rep);
        std::cout << "{\"call\":" << i << ",\"seq\":" << seq << ",\"success\":" << (rep.success() ? "true" : "false")
                  << ",\"message\":" << json_str(rep.message()) << "}" << std::endl;
    }
    return 0;
}

// ---- control_msgs/action/FollowJointTrajectory server ----

namespace fjt = control_msgs::action::dds_;
namespace amsg = action_msgs::msg::dds_;
namespace asrv = action_msgs::srv::dds_;
using Stamp = builtin_interfaces::msg::dds_::Time_;
using UUID = std::array<uint8_t, 16>;

// Goal status codes (action_msgs/msg/GoalStatus).
enum : int8_t { ST_UNKNOWN = 0, ST_ACCEPTED, ST_EXECUTING, ST_CANCELING, ST_SUCCEEDED, ST_CANCELED, ST_ABORTED };

static std::string uuid_str(const UUID &u)
{
    std::string h = hex(u.data(), 16);
    return "\"" + h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20) + "\"";
}

static Stamp now_stamp()
{
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    Stamp t;
    t.sec(int32_t(ns / 1000000000));
    t.nanosec(uint32_t(ns % 1000000000));
    return t;
}

static bool terminal(int8_t st) { return st >= ST_SUCCEEDED; }

static std::string event(const char *name, const UUID &id)
{
    return std::string("{\"event\":\"") + name + "\",\"goal_id\":" + uuid_str(id);
}

static std::string json_list(const std::vector<std::string> &v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); i++)
        s += (i ? "," : "") + json_str(v[i]);
    return s + "]";
}

struct Goal
{
    UUID id;
    Stamp stamp; // accepted at
    int8_t status = ST_ACCEPTED;
    int feedback_sent = 0;
    Clock::time_point next, ended;
    bool forgotten = false;
    int32_t error_code = 0;
    std::string error_string;
    std::vector<std::string> joints;
};

// A get_result request waiting for its goal to end.
struct Pending
{
    UUID id;
    SampleIdentity to;
};

struct Action
{
    const Opts *o;
    Svc send, cancel, result;
    DataWriter *feedback = nullptr, *status = nullptr;
    std::vector<Goal> goals;
    std::set<UUID> seen; // every goal id ever received
    std::vector<Pending> pend;

    Goal *find(const UUID &id)
    {
        for (auto &g : goals)
            if (!g.forgotten && g.id == id)
                return &g;
        return nullptr;
    }

    // publish_status writes every goal the server still knows, as rcl does
    // after each change (transient_local, keep last 1).
    void publish_status()
    {
        amsg::GoalStatusArray_ m;
        for (const auto &g : goals)
        {
            if (g.forgotten)
                continue;
            amsg::GoalStatus_ st;
            st.goal_info().goal_id().uuid() = g.id;
            st.goal_info().stamp() = g.stamp;
            st.status(g.status);
            m.status_list().push_back(st);
        }
        if (!write_ok(status, &m))
            die("write status failed");
    }

    void answer_result(const SampleIdentity &to, const UUID &id)
    {
        Goal *g = find(id);
        fjt::FollowJointTrajectory_GetResult_Response_ rep;
        rep.status(g ? g->status : ST_UNKNOWN);
        if (g)
        {
            rep.result().error_code(g->error_code);
            rep.result().error_string(g->error_string);
        }
        bool sent = reply(result, *o, to, &rep);
        std::cout << event("get_result", id) << ",\"status\":" << int(rep.status()) << ",\"replied\":" << (sent ? "true" : "false") << "}" << std::endl;
    }

    // finish ends a goal with a terminal status and answers the get_result
    // requests that waited for it.
    void finish(Goal &g, int8_t st, int32_t code, const std::string &why)
    {
        g.status = st;
        g.error_code = code;
        g.error_string = why;
        g.ended = Clock::now();
        std::cout << event("result", g.id) << ",\"status\":" << int(st) << ",\"error_code\":" << code << ",\"error_string\":" << json_str(why) << "}" << std::endl;
        publish_status();
        UUID id = g.id;
        for (size_t i = 0; i < pend.size();)
        {
            if (pend[i].id == id)
            {
                answer_result(pend[i].to, id);
                pend.erase(pend.begin() + long(i));
            }
            else
                i++;
        }
    }

    void send_feedback(Goal &g)
    {
        fjt::FollowJointTrajectory_FeedbackMessage_ m;
        m.goal_id().uuid() = g.id;
        m.feedback().header().stamp() = now_stamp();
        m.feedback().joint_names(g.joints);
        if (!write_ok(feedback, &m))
            die("write feedback failed");
        g.feedback_sent++;
        std::cout << event("feedback", g.id) << ",\"n\":" << g.feedback_sent << "}" << std::endl;
    }

    void on_send_goal(const fjt::FollowJointTrajectory_SendGoal_Request_ &req, const SampleIdentity &to)
    {
        const UUID &id = req.goal_id().uuid();
        if (seen.count(id))
        {
            std::string u = uuid_str(id);
            std::cerr << "DUPLICATE GOAL UUID " << u.substr(1, 36) << std::endl;
            std::exit(4);
        }
        seen.insert(id);
        const auto &tr = req.goal().trajectory();
        std::cout << event("goal", id) << ",\"joints\":" << json_list(tr.joint_names()) << ",\"points\":" << tr.points().size() << "}" << std::endl;
        bool accept = !o->reject_goals;
        fjt::FollowJointTrajectory_SendGoal_Response_ rep;
        rep.accepted(accept);
        rep.stamp(now_stamp());
        bool sent = reply(send, *o, to, &rep);
        std::cout << event(accept ? "accepted" : "rejected", id) << ",\"replied\":" << (sent ? "true" : "false") << "}" << std::endl;
        if (!accept)
            return;
        // joint_trajectory_controller ends the goal it was running when a
        // new one comes: ABORTED on Jazzy and later, CANCELED on Humble.
        for (auto &old : goals)
        {
            if (old.forgotten || terminal(old.status))
                continue;
            std::cout << event("preempted", old.id) << ",\"by\":" << uuid_str(id) << "}" << std::endl;
            if (o->preempt_canceled)
                finish(old, ST_CANCELED, -1, "Current goal cancelled due to new incoming action.");
            else
                finish(old, ST_ABORTED, -1, "Current goal preempted by new incoming action.");
        }
        Goal g;
        g.id = id;
        g.stamp = rep.stamp();
        g.joints = tr.joint_names();
        goals.push_back(g);
        publish_status();
        goals.back().status = ST_EXECUTING;
        goals.back().next = after(o->feedback_period);
        publish_status();
    }

    // on_cancel follows rcl_action's rules: a zero goal id and zero stamp
    // cancel every goal, a zero id and a stamp every goal accepted at or
    // before it, an id that goal (and, with a stamp, those before it).
    void on_cancel(const asrv::CancelGoal_Request_ &req, const SampleIdentity &to)
    {
        const UUID &id = req.goal_info().goal_id().uuid();
        const Stamp &st = req.goal_info().stamp();
        UUID zero{};
        bool all = id == zero, by_stamp = st.sec() != 0 || st.nanosec() != 0;
        asrv::CancelGoal_Response_ rep;
        std::vector<std::string> ids;
        for (auto &g : goals)
        {
            if (o->reject_cancels || g.forgotten || terminal(g.status))
                continue;
            bool before = g.stamp.sec() < st.sec() || (g.stamp.sec() == st.sec() && g.stamp.nanosec() <= st.nanosec());
            if ((all && !by_stamp) || g.id == id || (by_stamp && before))
            {
                amsg::GoalInfo_ gi;
                gi.goal_id().uuid() = g.id;
                gi.stamp(g.stamp);
                rep.goals_canceling().push_back(gi);
                ids.push_back(uuid_str(g.id));
            }
        }
        int8_t code = 0;
        if (ids.empty())
        {
            Goal *g = all ? nullptr : find(id);
            code = all || o->reject_cancels ? 1 : g == nullptr ? 2 : terminal(g->status) ? 3 : 1;
        }
        rep.return_code(code);
        bool sent = reply(cancel, *o, to, &rep);
        std::string list = "[";
        for (size_t i = 0; i < ids.size(); i++)
            list += (i ? "," : "") + ids[i];
        std::cout << event("cancel", id) << ",\"return_code\":" << int(code) << ",\"canceling\":" << list << "],\"replied\":" << (sent ? "true" : "false") << "}" << std::endl;
        for (const auto &gi : rep.goals_canceling())
            find(gi.goal_id().uuid())->status = ST_CANCELING;
        if (!ids.empty())
            publish_status();
    }

    void on_get_result(const fjt::FollowJointTrajectory_GetResult_Request_ &req, const SampleIdentity &to)
    {
        Goal *g = find(req.goal_id().uuid());
        if (g == nullptr || terminal(g->status))
            answer_result(to, req.goal_id().uuid());
        else // rclcpp answers get_result of a live goal when it ends
            pend.push_back(Pending{req.goal_id().uuid(), to});
    }

    // step moves each live goal along the script and forgets results older
    // than --result-timeout, as rcl_action does.
    void step()
    {
        auto now = Clock::now();
        auto keep = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o->result_timeout));
        for (auto &g : goals)
        {
            if (g.forgotten)
                continue;
            if (g.status == ST_CANCELING)
                finish(g, ST_CANCELED, 0, "Goal canceled");
            else if (g.status == ST_EXECUTING && now >= g.next)
            {
                g.next = after(o->feedback_period);
                if (g.feedback_sent < o->feedback)
                    send_feedback(g);
                else if (o->outcome == "succeed")
                    finish(g, ST_SUCCEEDED, 0, "");
                else if (o->outcome == "abort")
                    finish(g, ST_ABORTED, -4, "Aborted due to path tolerance violation");
            }
            else if (terminal(g.status) && now - g.ended >= keep)
            {
                g.forgotten = true;
                std::cout << event("forgotten", g.id) << "}" << std::endl;
                publish_status();
            }
        }
    }
};

// action_services opens an action's three services (rcl's names:
// <action>/_action/send_goal, cancel_goal, get_result) and returns the
// action's name without its leading slash.
static std::string action_services(DomainParticipant *pp, const Opts &o, Svc &send, Svc &cancel, Svc &result, bool server)
{
    std::string base = o.action[0] == '/' ? o.action.substr(1) : o.action;
    svc_open<fjt::FollowJointTrajectory_SendGoal_Request_PubSubType, fjt::FollowJointTrajectory_SendGoal_Response_PubSubType>(send, pp, base + "/_action/send_goal", server);
    svc_open<asrv::CancelGoal_Request_PubSubType, asrv::CancelGoal_Response_PubSubType>(cancel, pp, base + "/_action/cancel_goal", server);
    svc_open<fjt::FollowJointTrajectory_GetResult_Request_PubSubType, fjt::FollowJointTrajectory_GetResult_Response_PubSubType>(result, pp, base + "/_action/get_result", server);
    return base;
}

static int action_server(DomainParticipant *pp, const Opts &o)
{
    static Action a;
    a.o = &o;
    std::string base = action_services(pp, o, a.send, a.cancel, a.result, true);
    DataWriterQos fq = DATAWRITER_QOS_DEFAULT, sq = DATAWRITER_QOS_DEFAULT;
    qos_reliable(fq, 10, false, false);
    qos_reliable(sq, 1, true, false);
    Publisher *pub = pp->create_publisher(PUBLISHER_QOS_DEFAULT);
    a.feedback = make_writer(pub, topic(pp, "rt/" + base + "/_action/feedback", new fjt::FollowJointTrajectory_FeedbackMessage_PubSubType()), fq);
    a.status = make_writer(pub, topic(pp, "rt/" + base + "/_action/status", new amsg::GoalStatusArray_PubSubType()), sq);
    if (a.feedback == nullptr || a.status == nullptr)
        die("create feedback or status writer failed");
    NodeEps eps;
    svc_eps(a.send, eps);
    svc_eps(a.cancel, eps);
    svc_eps(a.result, eps);
    eps.writers.push_back(a.feedback->guid());
    eps.writers.push_back(a.status->guid());
    announce_node(pp, o, eps);
    std::cerr << "fastnode: ready" << std::endl;
    while (!stopping)
    {
        bool idle = true;
        SampleIdentity to;
        fjt::FollowJointTrajectory_SendGoal_Request_ goal;
        if (take_request(a.send, goal, to))
        {
            a.on_send_goal(goal, to);
            idle = false;
        }
        asrv::CancelGoal_Request_ cancel;
        if (take_request(a.cancel, cancel, to))
        {
            a.on_cancel(cancel, to);
            idle = false;
        }
        fjt::FollowJointTrajectory_GetResult_Request_ result;
        if (take_request(a.result, result, to))
        {
            a.on_get_result(result, to);
            idle = false;
        }
        a.step();
        if (idle)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return 0;
}

// ---- FollowJointTrajectory client (to drive the server from a peer) ----

static bool parse_uuid(const std::string &s, UUID &u)
{
    std::string h;
    for (char c : s)
        if (c != '-')
            h += c;
    if (h.size() != 32)
        return false;
    for (size_t i = 0; i < 16; i++)
    {
        char *end;
        std::string b = h.substr(2 * i, 2);
        u[i] = uint8_t(std::strtoul(b.c_str(), &end, 16));
        if (*end)
            return false;
    }
    return true;
}

static std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size() && !s.empty())
    {
        size_t comma = s.find(',', start);
        out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

static int action_client(DomainParticipant *pp, const Opts &o)
{
    static Svc send, cancel, result;
    std::string base = action_services(pp, o, send, cancel, result, false);
    DataReaderQos fq = DATAREADER_QOS_DEFAULT, sq = DATAREADER_QOS_DEFAULT;
    qos_reliable(fq, 100, false, false);
    qos_reliable(sq, 1, true, false);
    Subscriber *sub = pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT);
    fjt::FollowJointTrajectory_FeedbackMessage_PubSubType fbt;
    amsg::GoalStatusArray_PubSubType stt;
    DataReader *fb = make_reader(sub, topic(pp, "rt/" + base + "/_action/feedback", new RawType(type_name(&fbt))), fq);
    DataReader *st = make_reader(sub, topic(pp, "rt/" + base + "/_action/status", new RawType(type_name(&stt))), sq);
    if (fb == nullptr || st == nullptr)
        die("create feedback or status reader failed");
    UUID last{};
    int last_feedback = 0;
    auto poll = [&] {
        RawSample raw;
        SampleInfo info;
        while (fb->take_next_sample(&raw, &info) == RC_OK)
        {
            if (!info.valid_data)
                continue;
            fjt::FollowJointTrajectory_FeedbackMessage_ m;
            decode(raw, m, "feedback");
            if (m.goal_id().uuid() == last)
                last_feedback++;
            std::cout << event("feedback", m.goal_id().uuid()) << ",\"joints\":" << json_list(m.feedback().joint_names()) << "}" << std::endl;
        }
        while (st->take_next_sample(&raw, &info) == RC_OK)
        {
            if (!info.valid_data)
                continue;
            amsg::GoalStatusArray_ m;
            decode(raw, m, "status");
            std::string s = "{\"event\":\"status\",\"goals\":[";
            for (size_t i = 0; i < m.status_list().size(); i++)
                s += std::string(i ? "," : "") + "{\"goal_id\":" + uuid_str(m.status_list()[i].goal_info().goal_id().uuid()) +
                     ",\"status\":" + std::to_string(int(m.status_list()[i].status())) + "}";
            std::cout << s << "]}" << std::endl;
        }
    };
    auto poll_for = [&](double secs) {
        auto end = after(secs);
        while (!stopping && Clock::now() < end)
        {
            poll();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    };
    call_idle = poll;
    std::cerr << "fastnode: ready" << std::endl;
    wait_matched(send, o.timeout);
    wait_matched(cancel, o.timeout);
    wait_matched(result, o.timeout);
    std::vector<UUID> accepted;
    std::vector<std::string> joints = split(o.joints), goals = split(o.goals);
    for (size_t gi = 0; gi < goals.size(); gi++)
    {
        fjt::FollowJointTrajectory_SendGoal_Request_ req;
        if (!parse_uuid(goals[gi], req.goal_id().uuid()))
            die("bad goal id in --goals: " + goals[gi]);
        auto &tr = req.goal().trajectory();
        tr.joint_names(joints);
        // --points of zeros, 0.1 s apart: a large goal crosses the wire in
        // fragments
        for (int k = 1; k <= std::max(o.points, 1); k++)
        {
            trajectory_msgs::msg::dds_::JointTrajectoryPoint_ pt;
            pt.positions(std::vector<double>(joints.size(), 0.0));
            pt.velocities(pt.positions());
            pt.time_from_start().sec(k / 10);
            pt.time_from_start().nanosec(uint32_t(k % 10) * 100000000u);
            tr.points().push_back(pt);
        }
        fjt::FollowJointTrajectory_SendGoal_Response_ rep;
        call(send, o, req, rep);
        std::cout << event("sent", req.goal_id().uuid()) << ",\"accepted\":" << (rep.accepted() ? "true" : "false") << "}" << std::endl;
        if (rep.accepted())
        {
            accepted.push_back(req.goal_id().uuid());
            last = req.goal_id().uuid();
            last_feedback = 0;
        }
        if (gi + 1 < goals.size())
            poll_for(o.gap);
    }
    if (!o.cancel.empty())
    {
        auto end = after(o.timeout);
        while (!stopping && last_feedback < o.cancel_after && Clock::now() < end)
            poll_for(0.01);
        asrv::CancelGoal_Request_ req;
        if (o.cancel != "all" && !parse_uuid(o.cancel, req.goal_info().goal_id().uuid()))
            die("bad --cancel-goal " + o.cancel);
        asrv::CancelGoal_Response_ rep;
        call(cancel, o, req, rep);
        std::string list = "[";
        for (size_t i = 0; i < rep.goals_canceling().size(); i++)
            list += (i ? "," : "") + uuid_str(rep.goals_canceling()[i].goal_id().uuid());
        std::cout << "{\"event\":\"cancel\",\"return_code\":" << int(rep.return_code()) << ",\"canceling\":" << list << "]}" << std::endl;
    }
    poll_for(o.result_delay);
    for (size_t i = 0; i < accepted.size() && !o.no_result; i++)
    {
        fjt::FollowJointTrajectory_GetResult_Request_ req;
        req.goal_id().uuid() = accepted[i];
        fjt::FollowJointTrajectory_GetResult_Response_ rep;
        call(result, o, req, rep);
        std::cout << event("result", accepted[i]) << ",\"status\":" << int(rep.status()) << ",\"error_code\":" << rep.result().error_code()
                  << ",\"error_string\":" << json_str(rep.result().error_string()) << "}" << std::endl;
    }
    poll_for(0.2);
    return 0;
}

// ---- rcl_interfaces parameter services ----

namespace rmsg = rcl_interfaces::msg::dds_;
namespace rsrv = rcl_interfaces::srv::dds_;

enum : uint8_t { PT_NOT_SET = 0, PT_BOOL, PT_INTEGER, PT_DOUBLE, PT_STRING };

static const char *type_names[] = {"not_set", "bool", "int", "double", "string"};

static std::string type_name(uint8_t t) { return t <= PT_STRING ? type_names[t] : "array"; }

// parse_value reads "type:value" (bool, int, double or string).
static bool parse_value(const std::string &s, rmsg::ParameterValue_ &v)
{
    v = rmsg::ParameterValue_();
    size_t colon = s.find(':');
    if (colon == std::string::npos)
        return false;
    std::string t = s.substr(0, colon), val = s.substr(colon + 1);
    char *end = nullptr;
    if (t == "bool")
    {
        v.type(PT_BOOL);
        v.bool_value(val == "true");
        return val == "true" || val == "false";
    }
    if (t == "int")
    {
        v.type(PT_INTEGER);
        v.integer_value(std::strtoll(val.c_str(), &end, 10));
        return !val.empty() && *end == 0;
    }
    if (t == "double")
    {
        v.type(PT_DOUBLE);
        v.double_value(std::strtod(val.c_str(), &end));
        return !val.empty() && *end == 0;
    }
    if (t == "string")
    {
        v.type(PT_STRING);
        v.string_value(val);
        return true;
    }
    return false;
}

// value_json is {"type":T,"value":V}; arrays are given by type only.
static std::string value_json(const rmsg::ParameterValue_ &v)
{
    std::string s = "{\"type\":" + std::to_string(int(v.type())) + ",\"value\":";
    char b[64];
    switch (v.type())
    {
        case PT_BOOL: s += v.bool_value() ? "true" : "false"; break;
        case PT_INTEGER: s += std::to_string(v.integer_value()); break;
        case PT_DOUBLE: std::snprintf(b, sizeof b, "%.17g", v.double_value()); s += b; break;
        case PT_STRING: s += json_str(v.string_value()); break;
        default: s += "null";
    }
    return s + "}";
}

struct Param
{
    std::string name;
    rmsg::ParameterValue_ v;
    bool read_only = false;
};

struct Params
{
    std::vector<Param> p;
    Svc list, get, set, describe;
    DataWriter *events = nullptr; // rt/parameter_events
    std::string fqn;

    // publish_event writes a ParameterEvent for the node, as rclcpp does
    // on each declare (new) and each successful set (changed).
    void publish_event(const Param &x, bool is_new)
    {
        rmsg::ParameterEvent_ e;
        e.stamp(now_stamp());
        e.node(fqn);
        rmsg::Parameter_ np;
        np.name(x.name);
        np.value(x.v);
        (is_new ? e.new_parameters() : e.changed_parameters()).push_back(np);
        if (!write_ok(events, &e))
            die("write parameter event failed");
    }

    Param *find(const std::string &name)
    {
        for (auto &x : p)
            if (x.name == name)
                return &x;
        return nullptr;
    }
    bool all_declared(const std::vector<std::string> &names)
    {
        for (const auto &n : names)
            if (find(n) == nullptr)
                return false;
        return true;
    }

    // on_list follows rclcpp's list_parameters: names under a prefix (all
    // with none), at most depth levels below it (0: any), and the prefixes
    // of the names listed.
    void on_list(const rsrv::ListParameters_Request_ &req, rsrv::ListParameters_Response_ &rep)
    {
        auto dots = [](const std::string &s) { return uint64_t(std::count(s.begin(), s.end(), '.')); };
        auto push = [](std::vector<std::string> &v, const std::string &s) {
            if (std::find(v.begin(), v.end(), s) == v.end())
                v.push_back(s);
        };
        for (const auto &x : p)
        {
            bool add = req.prefixes().empty() && (req.depth() == 0 || dots(x.name) < req.depth());
            for (const auto &pre : req.prefixes())
                if (!add && (x.name == pre || (x.name.rfind(pre + ".", 0) == 0 && (req.depth() == 0 || dots(x.name.substr(pre.size() + 1)) < req.depth()))))
                    add = true;
            if (!add)
                continue;
            push(rep.result().names(), x.name);
            size_t last = x.name.rfind('.');
            if (last != std::string::npos)
                push(rep.result().prefixes(), x.name.substr(0, last));
        }
        std::cout << "{\"event\":\"list\",\"prefixes\":" << json_list(req.prefixes()) << ",\"depth\":" << req.depth() << ",\"names\":" << json_list(rep.result().names()) << "}" << std::endl;
    }

    // on_get answers the values, or nothing when a name is not declared
    // (as rclcpp, which catches ParameterNotDeclaredException).
    void on_get(const rsrv::GetParameters_Request_ &req, rsrv::GetParameters_Response_ &rep)
    {
        std::string vals;
        if (all_declared(req.names()))
            for (const auto &n : req.names())
            {
                rep.values().push_back(find(n)->v);
                vals += (vals.empty() ? "" : ",") + value_json(find(n)->v);
            }
        std::cout << "{\"event\":\"get\",\"names\":" << json_list(req.names()) << ",\"values\":[" << vals << "]}" << std::endl;
    }

    // on_set sets each parameter as rclcpp does for declared ones: its
    // type may not change (no dynamic typing) and a read-only one stays.
    void on_set(const rsrv::SetParameters_Request_ &req, rsrv::SetParameters_Response_ &rep)
    {
        for (const auto &np : req.parameters())
        {
            Param *x = find(np.name());
            std::string why;
            if (x == nullptr)
                why = "parameter '" + np.name() + "' cannot be set because it was not declared";
            else if (x->read_only)
                why = "parameter '" + np.name() + "' cannot be set because it is read-only";
            else if (np.value().type() != x->v.type())
                why = "Wrong parameter type, parameter {" + np.name() + "} is of type {" + type_name(x->v.type()) + "}, setting it to {" + type_name(np.value().type()) + "} is not allowed.";
            else
            {
                x->v = np.value();
                publish_event(*x, false);
            }
            rmsg::SetParametersResult_ r;
            r.successful(why.empty());
            r.reason(why);
            rep.results().push_back(r);
            std::cout << "{\"event\":\"set\",\"name\":" << json_str(np.name()) << ",\"value\":" << value_json(np.value()) << ",\"successful\":"
                      << (why.empty() ? "true" : "false") << ",\"reason\":" << json_str(why) << "}" << std::endl;
        }
    }

    void on_describe(const rsrv::DescribeParameters_Request_ &req, rsrv::DescribeParameters_Response_ &rep)
    {
        bool all = all_declared(req.names());
        if (all)
            for (const auto &n : req.names())
            {
                rmsg::ParameterDescriptor_ d;
                d.name(n);
                d.type(find(n)->v.type());
                d.read_only(find(n)->read_only);
                rep.descriptors().push_back(d);
            }
        std::cout << "{\"event\":\"describe\",\"names\":" << json_list(req.names()) << ",\"described\":" << (all ? req.names().size() : 0) << "}" << std::endl;
    }
};

// param_services opens a node's parameter services (rclcpp's names:
// <node>/list_parameters, get_parameters, set_parameters,
// describe_parameters).
static void param_services(DomainParticipant *pp, const Opts &o, Params &ps, bool server)
{
    std::string fqn = ps.fqn = o.ns + (o.ns == "/" ? "" : "/") + o.node;
    svc_open<rsrv::ListParameters_Request_PubSubType, rsrv::ListParameters_Response_PubSubType>(ps.list, pp, fqn + "/list_parameters", server);
    svc_open<rsrv::GetParameters_Request_PubSubType, rsrv::GetParameters_Response_PubSubType>(ps.get, pp, fqn + "/get_parameters", server);
    svc_open<rsrv::SetParameters_Request_PubSubType, rsrv::SetParameters_Response_PubSubType>(ps.set, pp, fqn + "/set_parameters", server);
    svc_open<rsrv::DescribeParameters_Request_PubSubType, rsrv::DescribeParameters_Response_PubSubType>(ps.describe, pp, fqn + "/describe_parameters", server);
}

// handle_one takes a request of s, if any, and replies what h makes of it.
template <class Req, class Rep>
static bool handle_one(const Opts &o, Svc &s, const std::function<void(const Req &, Rep &)> &h)
{
    Req req;
    SampleIdentity to;
    if (!take_request(s, req, to))
        return false;
    Rep rep;
    h(req, rep);
    reply(s, o, to, &rep);
    return true;
}

static int param_server(DomainParticipant *pp, const Opts &o)
{
    static Params ps;
    for (const auto &spec : o.params)
    {
        size_t eq = spec.find('=');
        Param x;
        if (eq == std::string::npos || !parse_value(spec.substr(eq + 1), x.v))
            die("--param " + spec + " is not name=type:value (bool, int, double or string)");
        x.name = spec.substr(0, eq);
        ps.p.push_back(x);
    }
    for (const auto &name : o.readonly)
    {
        if (ps.find(name) == nullptr)
            die("--read-only " + name + " names no --param");
        ps.find(name)->read_only = true;
    }
    param_services(pp, o, ps, true);
    // /parameter_events: reliable, volatile, keep last 1000 (rmw's
    // parameter_events profile)
    DataWriterQos eq = DATAWRITER_QOS_DEFAULT;
    qos_reliable(eq, 1000, false, false);
    ps.events = make_writer(pp->create_publisher(PUBLISHER_QOS_DEFAULT), topic(pp, "rt/parameter_events", new rmsg::ParameterEvent_PubSubType()), eq);
    NodeEps eps;
    for (Svc *s : {&ps.list, &ps.get, &ps.set, &ps.describe})
        svc_eps(*s, eps);
    eps.writers.push_back(ps.events->guid());
    announce_node(pp, o, eps);
    for (const auto &x : ps.p)
        ps.publish_event(x, true);
    std::cerr << "fastnode: ready" << std::endl;
    using namespace std::placeholders;
    while (!stopping)
    {
        bool any = handle_one<rsrv::ListParameters_Request_, rsrv::ListParameters_Response_>(o, ps.list, std::bind(&Params::on_list, &ps, _1, _2));
        any |= handle_one<rsrv::GetParameters_Request_, rsrv::GetParameters_Response_>(o, ps.get, std::bind(&Params::on_get, &ps, _1, _2));
        any |= handle_one<rsrv::SetParameters_Request_, rsrv::SetParameters_Response_>(o, ps.set, std::bind(&Params::on_set, &ps, _1, _2));
        any |= handle_one<rsrv::DescribeParameters_Request_, rsrv::DescribeParameters_Response_>(o, ps.describe, std::bind(&Params::on_describe, &ps, _1, _2));
        if (!any)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return 0;
}

// param_client makes each --call in order and prints each reply:
// list[:prefix,…], get:a,b, set:name=type:value, describe:a,b.
static std::vector<std::string> param_names(const std::vector<rmsg::Parameter_> &ps)
{
    std::vector<std::string> out;
    for (const auto &p : ps)
        out.push_back(p.name());
    return out;
}

static int param_client(DomainParticipant *pp, const Opts &o)
{
    static Params ps;
    param_services(pp, o, ps, false);
    DataReaderQos eq = DATAREADER_QOS_DEFAULT;
    qos_reliable(eq, 1000, false, false);
    rmsg::ParameterEvent_PubSubType et;
    DataReader *events = make_reader(pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT), topic(pp, "rt/parameter_events", new RawType(type_name(&et))), eq);
    std::cerr << "fastnode: ready" << std::endl;
    for (Svc *s : {&ps.list, &ps.get, &ps.set, &ps.describe})
        wait_matched(*s, o.timeout);
    for (const auto &c : o.calls)
    {
        size_t colon = c.find(':');
        std::string op = c.substr(0, colon), arg = colon == std::string::npos ? "" : c.substr(colon + 1);
        std::vector<std::string> names = split(arg);
        if (op == "list")
        {
            rsrv::ListParameters_Request_ req;
            req.prefixes(names);
            rsrv::ListParameters_Response_ rep;
            call(ps.list, o, req, rep);
            std::cout << "{\"call\":\"list\",\"names\":" << json_list(rep.result().names()) << ",\"prefixes\":" << json_list(rep.result().prefixes()) << "}" << std::endl;
        }
        else if (op == "get")
        {
            rsrv::GetParameters_Request_ req;
            req.names(names);
            rsrv::GetParameters_Response_ rep;
            call(ps.get, o, req, rep);
            std::string vals;
            for (const auto &v : rep.values())
                vals += (vals.empty() ? "" : ",") + value_json(v);
            std::cout << "{\"call\":\"get\",\"values\":[" << vals << "]}" << std::endl;
        }
        else if (op == "set")
        {
            size_t eq = arg.find('=');
            rmsg::Parameter_ p;
            if (eq == std::string::npos || !parse_value(arg.substr(eq + 1), p.value()))
                die("--call " + c + " is not set:name=type:value");
            p.name(arg.substr(0, eq));
            rsrv::SetParameters_Request_ req;
            req.parameters().push_back(p);
            rsrv::SetParameters_Response_ rep;
            call(ps.set, o, req, rep);
            std::string rs;
            for (const auto &r : rep.results())
                rs += std::string(rs.empty() ? "" : ",") + "{\"successful\":" + (r.successful() ? "true" : "false") + ",\"reason\":" + json_str(r.reason()) + "}";
            std::cout << "{\"call\":\"set\",\"results\":[" << rs << "]}" << std::endl;
        }
        else if (op == "describe")
        {
            rsrv::DescribeParameters_Request_ req;
            req.names(names);
            rsrv::DescribeParameters_Response_ rep;
            call(ps.describe, o, req, rep);
            std::string ds;
            for (const auto &d : rep.descriptors())
                ds += std::string(ds.empty() ? "" : ",") + "{\"name\":" + json_str(d.name()) + ",\"type\":" + std::to_string(int(d.type())) +
                      ",\"read_only\":" + (d.read_only() ? "true" : "false") + "}";
            std::cout << "{\"call\":\"describe\",\"descriptors\":[" << ds << "]}" << std::endl;
        }
        else
            die("--call " + c + ": list, get, set or describe");
    }
    // --events N: wait for N parameter events (all that came are printed)
    auto end = after(o.timeout);
    for (int got = 0; got < o.events && !stopping;)
    {
        RawSample raw;
        SampleInfo info;
        if (events->take_next_sample(&raw, &info) == RC_OK)
        {
            if (!info.valid_data)
                continue;
            rmsg::ParameterEvent_ e;
            decode(raw, e, "parameter event");
            std::cout << "{\"call\":\"event\",\"node\":" << json_str(e.node()) << ",\"new\":" << json_list(param_names(e.new_parameters()))
                      << ",\"changed\":" << json_list(param_names(e.changed_parameters())) << "}" << std::endl;
            got++;
            continue;
        }
        if (Clock::now() > end)
            die(std::to_string(got) + " parameter events of " + std::to_string(o.events) + " in " + std::to_string(o.timeout) + " s");
        events->wait_for_unread_message(FDuration(0, 5000000));
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        die("usage: fastnode trigger-server|trigger-client|announce|graph|action-server|action-client|param-server|param-client [options] (see README.md)");
    std::string mode = argv[1];
    Opts o = parse_opts(argc, argv);
    with_typehash = o.typehash;
    struct sigaction sa = {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    if ((mode == "trigger-server" || mode == "trigger-client") && o.service.empty())
        die(mode + " needs --service");
    if (mode.rfind("action-", 0) == 0 && o.action.empty())
        die(mode + " needs --action");
    if (mode.rfind("param-", 0) == 0 && o.node.empty())
        die(mode + " needs --node");
    DomainParticipant *pp = make_participant(o);
    int rc;
    if (mode == "trigger-server")
        rc = trigger_server(pp, o);
    else if (mode == "trigger-client")
        rc = trigger_client(pp, o);
    else if (mode == "announce")
        rc = announce_mode(pp, o);
    else if (mode == "graph")
        rc = graph(pp, o);
    else if (mode == "action-server")
        rc = action_server(pp, o);
    else if (mode == "action-client")
        rc = action_client(pp, o);
    else if (mode == "param-server")
        rc = param_server(pp, o);
    else if (mode == "param-client")
        rc = param_client(pp, o);
    else
        die("unknown mode " + mode);
    pp->delete_contained_entities();
    DomainParticipantFactory::get_instance()->delete_participant(pp);
    return rc;
}
