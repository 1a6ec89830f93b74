// fastpeer: a Fast DDS 2.9 (or 3.1: fastcompat.hpp) test peer for actbridge's CDR and RTPS tests.
// Built by the Go package test/ddspeers from fastddsgen's output for the
// peer types and fastpeer_types.{h,inc} (generated readers).
// Usage: see README.md.
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <fastcdr/Cdr.h>
#include <fastcdr/FastBuffer.h>
#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/topic/TopicDataType.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <memory>
#include <thread>

#include "fastcompat.hpp"

#include "fastpeer_types.h"

[[noreturn]] static void die(const std::string &msg)
{
    std::cerr << "fastpeer: " << msg << std::endl;
    std::exit(2);
}

using namespace eprosima::fastdds::dds;

// Tokens of the current sample, read from one stdin line: tok_begin starts
// on a line, tok returns its next token.
static char *tok_save, *tok_line;

static void tok_begin(char *line) { tok_line = line; }

static char *tok_next()
{
    char *t = strtok_r(tok_line, " \n", &tok_save);
    tok_line = nullptr;
    return t;
}

static char *tok()
{
    char *t = tok_next();
    if (t == nullptr)
        die("sample ends early");
    return t;
}

static uint64_t rd_u()
{
    char *t = tok(), *end;
    errno = 0;
    uint64_t v = std::strtoull(t, &end, 10);
    if (*end || errno)
        die(std::string("bad unsigned ") + t);
    return v;
}

static int64_t rd_i()
{
    char *t = tok(), *end;
    errno = 0;
    int64_t v = std::strtoll(t, &end, 10);
    if (*end || errno)
        die(std::string("bad integer ") + t);
    return v;
}

static double rd_f()
{
    char *t = tok(), *end;
    double v = std::strtod(t, &end);
    if (*end)
        die(std::string("bad float ") + t);
    return v;
}

// rd_len reads an array or sequence length: want > 0 is an array's exact
// length, want < 0 a sequence's bound, 0 an unbounded sequence.
static uint32_t rd_len(int want, const char *field)
{
    uint64_t n = rd_u();
    if ((want > 0 && n != uint64_t(want)) || (want < 0 && n > uint64_t(-want)) || n > UINT32_MAX)
        die(std::string("bad length for ") + field);
    return uint32_t(n);
}

static std::string rd_str()
{
    char *t = tok();
    size_t n = std::strlen(t);
    if (t[0] != 'x' || n % 2 != 1)
        die(std::string("bad string ") + t);
    std::string s;
    for (size_t i = 1; i + 1 < n; i += 2)
        s.push_back(char(std::stoi(std::string(t + i, 2), nullptr, 16)));
    return s;
}

static void rd(bool &v) { v = rd_u() != 0; }
static void rd(uint8_t &v) { v = uint8_t(rd_u()); }
static void rd(int8_t &v) { v = int8_t(rd_i()); }
static void rd(char &v) { v = char(rd_i()); }
static void rd(uint16_t &v) { v = uint16_t(rd_u()); }
static void rd(int16_t &v) { v = int16_t(rd_i()); }
static void rd(uint32_t &v) { v = uint32_t(rd_u()); }
static void rd(int32_t &v) { v = int32_t(rd_i()); }
static void rd(uint64_t &v) { v = rd_u(); }
static void rd(int64_t &v) { v = rd_i(); }
static void rd(float &v) { v = float(rd_f()); }
static void rd(double &v) { v = rd_f(); }
static void rd(std::string &v) { v = rd_str(); }

template <size_t N>
static void rd(fixed_string<N> &v)
{
    std::string s = rd_str();
    if (s.size() > N)
        die("string " + s + " longer than its bound");
    v = s;
}

static void rd(std::vector<bool> &v)
{
    for (size_t i = 0; i < v.size(); i++)
        v[i] = rd_u() != 0;
}

// An array's or sequence's length was read (and the vector sized) by the
// struct reader; these read the elements.
template <class T>
static void rd(std::vector<T> &v)
{
    for (auto &x : v)
        rd(x);
}

template <class T, size_t N>
static void rd(std::array<T, N> &v)
{
    for (auto &x : v)
        rd(x);
}

struct PeerType
{
    const char *name;     // pkg/msg/Type
    const char *dds_name; // pkg::msg::dds_::Type_
    std::string (*dump)(bool big_endian);
    TopicDataType *(*make_type)();
    void *(*read)();                          // a new sample from the current line
    ReturnCode_t (*write)(DataWriter *, void *); // write a sample read by read
    void (*free)(void *);
    int (*take)(DataReader *, DataWriter *); // print or echo one sample
};

// to_hex serializes sample with the code fastddsgen generated, as its
// PubSubType does but in the endianness asked for, and returns the hex.
template <class T>
static std::string to_hex(T &sample, bool big_endian)
{
    // Fast CDR skips alignment padding without writing it, so the padding
    // of a malloc'ed buffer is whatever was there: serialize into zeros,
    // as a fresh payload would be, to compare the bytes it does write.
    static std::vector<char> zeros(16 << 20, 0);
    eprosima::fastcdr::FastBuffer buf(zeros.data(), zeros.size());
    eprosima::fastcdr::Cdr ser(buf,
                               big_endian ? eprosima::fastcdr::Cdr::BIG_ENDIANNESS : eprosima::fastcdr::Cdr::LITTLE_ENDIANNESS,
                               CDR_MODE);
    ser.serialize_encapsulation();
    cdr_write(ser, sample);
    std::string out;
    char hex[3];
    for (size_t i = 0; i < cdr_len(ser); i++)
    {
        std::snprintf(hex, sizeof hex, "%02x", uint8_t(buf.getBuffer()[i]));
        out += hex;
    }
    std::memset(zeros.data(), 0, cdr_len(ser));
    return out;
}

template <class T>
static void *read_sample()
{
    auto *sample = new T();
    rd(*sample);
    if (tok_next() != nullptr)
        die("tokens left after the sample");
    return sample;
}

template <class T>
static std::string dump_sample(bool big_endian)
{
    std::unique_ptr<T> sample(static_cast<T *>(read_sample<T>()));
    return to_hex(*sample, big_endian);
}

template <class T>
static ReturnCode_t write_sample(DataWriter *w, void *sample) { return write_ok(w, sample) ? RC_OK : RC_ERROR; }

template <class T>
static void free_sample(void *sample) { delete static_cast<T *>(sample); }

// take_sample takes one sample and echoes it to w, or prints it when w is
// null. It returns 1 for a sample, 0 for a sample without data (a
// dispose), -1 when there is none left.
template <class T>
static int take_sample(DataReader *r, DataWriter *w)
{
    T sample;
    SampleInfo info;
    if (r->take_next_sample(&sample, &info) != RC_OK)
        return -1;
    if (!info.valid_data)
        return 0;
    if (w != nullptr)
        w->write(&sample);
    else
        std::cout << to_hex(sample, false) << std::endl;
    return 1;
}

template <class T>
static TopicDataType *make_type()
{
    return new T();
}

#include "fastpeer_types.inc"

static const PeerType &find_type(const std::string &name)
{
    for (const auto &t : peer_types)
        if (name == t.name || name == t.dds_name)
            return t;
    die("unknown type " + name);
}

// dump: each stdin line "TYPE LE|BE SAMPLE" becomes one stdout line, the
// hex of the sample as Fast CDR serializes it.
static int dump()
{
    std::string line;
    while (std::getline(std::cin, line))
    {
        std::vector<char> buf(line.begin(), line.end());
        buf.push_back(0);
        tok_begin(buf.data());
        char *name = tok_next();
        if (name == nullptr)
            continue;
        const PeerType &t = find_type(name);
        bool be = std::strcmp(tok(), "BE") == 0;
        std::cout << t.dump(be) << std::endl;
    }
    return 0;
}

// SIGTERM and SIGINT end pub, sub and echo cleanly: the participant is
// deleted, so peers drop it at once instead of waiting out its lease.
static volatile std::sig_atomic_t stopping;

extern "C" void on_signal(int) { stopping = 1; }

// nap sleeps for s seconds or until a stop signal.
static void nap(double s)
{
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
    while (!stopping && std::chrono::steady_clock::now() < end)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

// Options of pub, sub and echo; see README.md.
struct Opts
{
    std::string type, topic, out_topic;
    bool best_effort = false, transient_local = false, keep_all = false;
    int depth = 10, count = 0, wait_match = 1;
    uint32_t domain = 0;
    double rate = 0, timeout = 30, linger = 1;
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
        if (a == "--best-effort") o.best_effort = true;
        else if (a == "--transient-local") o.transient_local = true;
        else if (a == "--keep-all") o.keep_all = true;
        else if (a == "--type" && i + 1 < argc) o.type = argv[++i];
        else if (a == "--topic" && i + 1 < argc) o.topic = argv[++i];
        else if (a == "--out-topic" && i + 1 < argc) o.out_topic = argv[++i];
        else if (a == "--depth") o.depth = int(num(i));
        else if (a == "--count") o.count = int(num(i));
        else if (a == "--wait-match") o.wait_match = int(num(i));
        else if (a == "--domain") o.domain = uint32_t(num(i));
        else if (a == "--rate") o.rate = num(i);
        else if (a == "--timeout") o.timeout = num(i);
        else if (a == "--linger") o.linger = num(i);
        else die("unknown option " + a);
    }
    if (o.type.empty() || o.topic.empty())
        die("--type and --topic are required");
    if (o.depth < 1)
        die("--depth must be at least 1");
    return o;
}

template <class Q>
static void set_qos(Q &q, const Opts &o)
{
    q.reliability().kind = o.best_effort ? BEST_EFFORT_RELIABILITY_QOS : RELIABLE_RELIABILITY_QOS;
    q.durability().kind = o.transient_local ? TRANSIENT_LOCAL_DURABILITY_QOS : VOLATILE_DURABILITY_QOS;
    q.history().kind = o.keep_all ? KEEP_ALL_HISTORY_QOS : KEEP_LAST_HISTORY_QOS;
    q.history().depth = o.depth;
    // Samples go on the wire even between two Fast DDS processes.
    q.data_sharing().off();
}

static std::chrono::duration<double> secs(double s) { return std::chrono::duration<double>(s); }

static int run(int argc, char **argv)
{
    std::string mode = argv[1];
    Opts o = parse_opts(argc, argv);
    const PeerType &t = find_type(o.type);
    struct sigaction sa = {};
    sa.sa_handler = on_signal; // no SA_RESTART: a blocked read ends
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);

    // UDPv4 only: no shared memory, so that every sample crosses the wire.
    DomainParticipantQos pq = PARTICIPANT_QOS_DEFAULT;
    pq.transport().use_builtin_transports = false;
    pq.transport().user_transports.push_back(std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>());
    DomainParticipant *pp = DomainParticipantFactory::get_instance()->create_participant(o.domain, pq);
    if (pp == nullptr)
        die("create participant failed");
    TypeSupport ts(t.make_type());
    if (ts.register_type(pp) != RC_OK)
        die("register type failed");
    Topic *topic = pp->create_topic(o.topic, ts.get_type_name(), TOPIC_QOS_DEFAULT);
    if (topic == nullptr)
        die("create topic failed");
    DataWriterQos wq = DATAWRITER_QOS_DEFAULT;
    set_qos(wq, o);
    DataReaderQos rq = DATAREADER_QOS_DEFAULT;
    set_qos(rq, o);
    int rc = 0;
    if (mode == "pub")
    {
        // The writer comes first, so that readers can match it while the
        // samples are still being read.
        Publisher *pub = pp->create_publisher(PUBLISHER_QOS_DEFAULT);
        DataWriter *w = pub->create_datawriter(topic, wq);
        if (w == nullptr)
            die("create writer failed");
        std::vector<void *> samples;
        std::string line;
        while (!stopping && std::getline(std::cin, line))
        {
            std::vector<char> buf(line.begin(), line.end());
            buf.push_back(0);
            tok_begin(buf.data());
            samples.push_back(t.read());
        }
        if (!stopping && samples.empty())
            die("no samples on stdin");
        auto end = std::chrono::steady_clock::now() + secs(o.timeout);
        PublicationMatchedStatus st;
        while (!stopping && o.wait_match > 0)
        {
            w->get_publication_matched_status(st);
            if (st.current_count >= o.wait_match)
            {
                std::cerr << "fastpeer: matched " << st.current_count << std::endl;
                break;
            }
            if (std::chrono::steady_clock::now() > end)
                die("timed out waiting for readers");
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        int total = o.count > 0 ? o.count : int(samples.size()), i;
        for (i = 0; i < total && !stopping; i++)
        {
            if (t.write(w, samples[size_t(i) % samples.size()]) != RC_OK)
                die("write failed");
            if (o.rate > 0)
                nap(1 / o.rate);
        }
        std::cerr << "fastpeer: published " << i << std::endl;
        nap(o.linger);
        for (void *s : samples)
            t.free(s);
    }
    else
    {
        DataWriter *w = nullptr;
        if (mode == "echo")
        {
            if (o.out_topic.empty())
                die("echo needs --out-topic");
            Topic *out = pp->create_topic(o.out_topic, ts.get_type_name(), TOPIC_QOS_DEFAULT);
            Publisher *pub = pp->create_publisher(PUBLISHER_QOS_DEFAULT);
            if (out == nullptr || (w = pub->create_datawriter(out, wq)) == nullptr)
                die("create echo writer failed");
        }
        Subscriber *sub = pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT);
        DataReader *r = sub->create_datareader(topic, rq);
        if (r == nullptr)
            die("create reader failed");
        std::cerr << "fastpeer: ready" << std::endl;
        int got = 0;
        bool matched = false;
        auto deadline = std::chrono::steady_clock::now() + secs(o.timeout);
        while (!stopping && (o.count == 0 || got < o.count))
        {
            if (!matched)
            {
                // Say when the reader knows a writer: a volatile reader drops
                // what a writer sent before that, so tests write after it.
                SubscriptionMatchedStatus ms;
                r->get_subscription_matched_status(ms);
                if ((matched = ms.current_count > 0))
                    std::cerr << "fastpeer: matched " << ms.current_count << std::endl;
            }
            r->wait_for_unread_message(FDuration(0, 50000000));
            int before = got;
            for (int n; (n = t.take(r, w)) >= 0;)
                got += n;
            if (got > before)
                deadline = std::chrono::steady_clock::now() + secs(o.timeout);
            if (std::chrono::steady_clock::now() > deadline)
                die("timed out waiting for a sample");
        }
        std::cerr << "fastpeer: received " << got << std::endl;
        if (w != nullptr)
            nap(o.linger);
    }
    pp->delete_contained_entities();
    DomainParticipantFactory::get_instance()->delete_participant(pp);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && std::strcmp(argv[1], "dump") == 0)
        return dump();
    if (argc >= 2 && std::strcmp(argv[1], "types") == 0)
    {
        for (const auto &t : peer_types)
            std::cout << t.name << " " << t.dds_name << "\n";
        return 0;
    }
    if (argc >= 2 && (std::strcmp(argv[1], "pub") == 0 || std::strcmp(argv[1], "sub") == 0 || std::strcmp(argv[1], "echo") == 0))
        return run(argc, argv);
    std::cerr << "usage: fastpeer dump|types|pub|sub|echo [options] (see README.md)\n";
    return 2;
}
