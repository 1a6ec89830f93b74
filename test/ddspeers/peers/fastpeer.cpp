// fastpeer: a Fast DDS 2.9 test peer for actbridge's CDR and RTPS tests.
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
#include <fastdds/dds/topic/TopicDataType.hpp>
#include <fastrtps/utils/fixed_size_string.hpp>

#include "fastpeer_types.h"

[[noreturn]] static void die(const std::string &msg)
{
    std::cerr << "fastpeer: " << msg << std::endl;
    std::exit(2);
}

// Tokens of the current sample, read from one stdin line.
static char *tok_save;

static char *tok()
{
    char *t = strtok_r(nullptr, " \n", &tok_save);
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
static void rd(eprosima::fastrtps::fixed_string<N> &v)
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
    eprosima::fastdds::dds::TopicDataType *(*make_type)();
};

// dump_sample reads a sample of T and returns the hex of its serialization
// by the code fastddsgen generated, the way its PubSubType does it, but in
// the endianness asked for.
template <class T>
static std::string dump_sample(bool big_endian)
{
    T sample;
    rd(sample);
    if (strtok_r(nullptr, " \n", &tok_save) != nullptr)
        die("tokens left after the sample");
    // Fast CDR skips alignment padding without writing it, so the padding
    // of a malloc'ed buffer is whatever was there: serialize into zeros,
    // as a fresh payload would be, to compare the bytes it does write.
    static std::vector<char> zeros(16 << 20, 0);
    eprosima::fastcdr::FastBuffer buf(zeros.data(), zeros.size());
    eprosima::fastcdr::Cdr ser(buf,
                               big_endian ? eprosima::fastcdr::Cdr::BIG_ENDIANNESS : eprosima::fastcdr::Cdr::LITTLE_ENDIANNESS,
                               eprosima::fastcdr::Cdr::DDS_CDR);
    ser.serialize_encapsulation();
    sample.serialize(ser);
    std::string out;
    char hex[3];
    for (size_t i = 0; i < ser.getSerializedDataLength(); i++)
    {
        std::snprintf(hex, sizeof hex, "%02x", uint8_t(buf.getBuffer()[i]));
        out += hex;
    }
    std::memset(zeros.data(), 0, ser.getSerializedDataLength());
    return out;
}

template <class T>
static eprosima::fastdds::dds::TopicDataType *make_type()
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

// dump: each stdin line "pkg/msg/Type LE|BE tokens…" becomes one stdout
// line, the hex of the sample as Fast CDR serializes it.
static int dump()
{
    std::string line;
    while (std::getline(std::cin, line))
    {
        std::vector<char> buf(line.begin(), line.end());
        buf.push_back(0);
        char *name = strtok_r(buf.data(), " \n", &tok_save);
        if (name == nullptr)
            continue;
        const PeerType &t = find_type(name);
        bool be = std::strcmp(tok(), "BE") == 0;
        std::cout << t.dump(be) << std::endl;
    }
    return 0;
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
    std::cerr << "usage: fastpeer dump|types (see README.md)\n";
    return 2;
}
