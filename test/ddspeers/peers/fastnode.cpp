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
#include <fastdds/rtps/common/InstanceHandle.h>
#include <fastdds/rtps/common/WriteParams.h>
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>

#include "nodetypes.h"
#include "nodetypesPubSubTypes.h"

using namespace eprosima::fastdds::dds;
using eprosima::fastrtps::rtps::GUID_t;
using eprosima::fastrtps::rtps::SampleIdentity;
using eprosima::fastrtps::rtps::SerializedPayload_t;
using eprosima::fastrtps::rtps::WriteParams;

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
    uint32_t domain = 0;
    double timeout = 30, linger = 1, reply_wait = 0.1;
};

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
        else if (a == "--gid-size") o.gid_size = int(num(i));
        else if (a == "--domain") o.domain = uint32_t(num(i));
        else if (a == "--timeout") o.timeout = num(i);
        else if (a == "--linger") o.linger = num(i);
        else if (a == "--reply-wait") o.reply_wait = num(i);
        else die("unknown option " + a);
    }
    if (o.gid_size != 16 && o.gid_size != 24)
        die("--gid-size is 16 (Jazzy and later) or 24 (Humble)");
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
    explicit RawType(const std::string &name)
    {
        setName(name.c_str());
        m_typeSize = 64 * 1024;
        m_isGetKeyDefined = false;
    }
    bool serialize(void *data, SerializedPayload_t *p) override
    {
        auto *s = static_cast<RawSample *>(data);
        if (s->bytes.size() > p->max_size)
            return false;
        std::memcpy(p->data, s->bytes.data(), s->bytes.size());
        p->length = uint32_t(s->bytes.size());
        return true;
    }
    bool deserialize(SerializedPayload_t *p, void *data) override
    {
        static_cast<RawSample *>(data)->bytes.assign(p->data, p->data + p->length);
        return true;
    }
    std::function<uint32_t()> getSerializedSizeProvider(void *data) override
    {
        return [data] { return uint32_t(static_cast<RawSample *>(data)->bytes.size()); };
    }
    void *createData() override { return new RawSample(); }
    void deleteData(void *data) override { delete static_cast<RawSample *>(data); }
    bool getKey(void *, eprosima::fastrtps::rtps::InstanceHandle_t *, bool) override { return false; }
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
    eprosima::fastcdr::Cdr d(fb, eprosima::fastcdr::Cdr::DEFAULT_ENDIAN, eprosima::fastcdr::Cdr::DDS_CDR);
    try
    {
        d.read_encapsulation();
        out.deserialize(d);
    }
    catch (const std::exception &e)
    {
        malformed(what + ": a " + std::to_string(b.size() - 4) + "-byte payload that does not decode" + " (" + e.what() + ")");
    }
    size_t left = b.size() - d.getSerializedDataLength();
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
    pq.user_data().data_vec(std::vector<eprosima::fastrtps::rtps::octet>(ud.begin(), ud.end()));
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
    q.endpoint().history_memory_policy = eprosima::fastrtps::rtps::DYNAMIC_REUSABLE_MEMORY_MODE;
}

// topic registers the type (once per name) and creates the topic.
static Topic *topic(DomainParticipant *pp, const std::string &name, TopicDataType *type)
{
    TypeSupport ts(type);
    if (pp->find_type(ts.get_type_name()).empty() && ts.register_type(pp) != ReturnCode_t::RETCODE_OK)
        die("register type " + ts.get_type_name() + " failed");
    Topic *t = pp->create_topic(name, ts.get_type_name(), TOPIC_QOS_DEFAULT);
    if (t == nullptr)
        die("create topic " + name + " failed");
    return t;
}

static const char *graph_type = "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_";

template <class TypeT>
static TypeT *named(const char *name)
{
    auto *t = new TypeT();
    t->setName(name);
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
    DataWriter *w = pp->create_publisher(PUBLISHER_QOS_DEFAULT)->create_datawriter(t, wq);
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
    if (!w->write(&m))
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
        if (r->take_next_sample(&raw, &info) != ReturnCode_t::RETCODE_OK)
        {
            r->wait_for_unread_message(eprosima::fastrtps::Duration_t(0, 50000000));
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
    DataReader *r = pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT)->create_datareader(t, rq);
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
        DataWriter *w = pub->create_datawriter(topic(pp, name, new std_msgs::msg::dds_::String_PubSubType()), wq);
        if (w == nullptr)
            die("create writer failed");
        eps.writers.push_back(w->guid());
    }
    for (const auto &name : o.subs)
    {
        DataReader *r = sub->create_datareader(topic(pp, name, new std_msgs::msg::dds_::String_PubSubType()), rq);
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
        GUID_t g = eprosima::fastrtps::rtps::iHandle2GUID(info.last_subscription_handle);
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

static uint64_t sn64(const eprosima::fastrtps::rtps::SequenceNumber_t &sn)
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
    std::string req_name = req->getName(), rep_name = rep->getName();
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
    s.w = pp->create_publisher(PUBLISHER_QOS_DEFAULT)->create_datawriter(wt, wq, &s.matched);
    s.r = pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT)->create_datareader(rt, rq);
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
    while (s.r->take_next_sample(&raw, &info) == ReturnCode_t::RETCODE_OK)
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

// serve answers requests: handle fills the reply to each. It waits up to
// --reply-wait for the client's reader to match before replying (rmw
// waits likewise) and stops after --count requests (0: until stopped) or
// --timeout seconds without one.
template <class Req, class Rep>
static void serve(Svc &s, const Opts &o, const std::function<void(int, const Req &, Rep &)> &handle, const std::function<void()> &idle = nullptr)
{
    auto deadline = after(o.timeout);
    int calls = 0;
    while (!stopping && (o.count == 0 || calls < o.count))
    {
        Req req;
        SampleIdentity to;
        if (!take_request(s, req, to))
        {
            if (idle)
                idle();
            s.r->wait_for_unread_message(eprosima::fastrtps::Duration_t(0, 5000000));
            if (o.timeout > 0 && Clock::now() > deadline)
                die("no request for " + std::to_string(o.timeout) + " s");
            continue;
        }
        calls++;
        Rep rep;
        handle(calls, req, rep);
        auto end = after(o.reply_wait);
        while (!s.matched.has(to.writer_guid()) && Clock::now() < end)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        bool sent = s.matched.has(to.writer_guid());
        if (sent)
        {
            WriteParams wp;
            wp.related_sample_identity(to);
            if (!s.w->write(&rep, wp))
                die("write reply failed");
        }
        else
            std::cerr << "fastnode: reply dropped: the client's reader did not match in time" << std::endl;
        std::cout << "{\"call\":" << calls << ",\"client\":" << guid_hex(to.writer_guid()) << ",\"seq\":" << sn64(to.sequence_number())
                  << ",\"replied\":" << (sent ? "true" : "false") << "}" << std::endl;
        deadline = after(o.timeout);
    }
}

// call sends a request naming the reply reader in related_sample_identity,
// as rmw_fastrtps does, and waits for the reply whose related identity is
// {that reader, the request's sequence number}; it returns that number.
template <class Req, class Rep>
static uint64_t call(Svc &s, const Opts &o, Req &req, Rep &rep)
{
    WriteParams wp;
    wp.related_sample_identity().writer_guid(s.r->guid());
    if (!s.w->write(&req, wp))
        die("write request failed");
    SampleIdentity mine = wp.sample_identity();
    auto end = after(o.timeout);
    for (;;)
    {
        RawSample raw;
        SampleInfo info;
        if (s.r->take_next_sample(&raw, &info) == ReturnCode_t::RETCODE_OK)
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
        s.r->wait_for_unread_message(eprosima::fastrtps::Duration_t(0, 5000000));
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
        rep.message("fastdds call " + std::to_string(n));
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

int main(int argc, char **argv)
{
    if (argc < 2)
        die("usage: fastnode trigger-server|trigger-client|announce|graph [options] (see README.md)");
    std::string mode = argv[1];
    Opts o = parse_opts(argc, argv);
    struct sigaction sa = {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    if ((mode == "trigger-server" || mode == "trigger-client") && o.service.empty())
        die(mode + " needs --service");
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
    else
        die("unknown mode " + mode);
    pp->delete_contained_entities();
    DomainParticipantFactory::get_instance()->delete_participant(pp);
    return rc;
}
