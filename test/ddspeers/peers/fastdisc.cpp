// fastdisc: one Fast DDS participant that says whom it discovers, for the
// discovery matrix (docs/discovery.md). Its configuration is what
// rmw_fastrtps_shared_cpp's create_participant builds for a ROS 2
// discovery range (participant.cpp on humble and jazzy, rolling alike,
// and the Fast DDS 3 port of Kilted and Lyrical, which renamed only
// namespaces and headers). It builds against Fast DDS 2.9 and 3.1
// (fastcompat.hpp).
//
//   fastdisc DOMAIN RANGE SECONDS
//
// RANGE: SUBNET or SYSTEM_DEFAULT (Fast DDS's default: UDPv4 and shared
// memory, SPDP multicast), LOCALHOST (Jazzy and later: no multicast
// listening, shared memory and UDPv4 with maxInitialPeersRange 32,
// initial peer 127.0.0.1), OFF (no multicast, one participant allowed:
// itself), HUMBLE_LOCALHOST (Humble's ROS_LOCALHOST_ONLY=1: UDPv4 with
// the interface white list 127.0.0.1, and shared memory).
//
// stdout: "self PREFIX" once, then "found PREFIX" and "lost PREFIX", and
// "reader PREFIX" for a reader another participant announced by SEDP (the
// GUID prefix, 24 hex digits). It runs SECONDS, or until SIGTERM.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/domain/DomainParticipantListener.hpp>

#include "fastcompat.hpp"

#if FASTDDS3
#include <fastdds/rtps/transport/shared_mem/SharedMemTransportDescriptor.hpp>
#else
#include <fastdds/rtps/reader/ReaderDiscoveryInfo.h>
#include <fastdds/rtps/transport/shared_mem/SharedMemTransportDescriptor.h>
#endif

using namespace eprosima::fastdds::dds;
using fdrtps::GuidPrefix_t;
using fdrtps::IPLocator;
using fdrtps::Locator_t;

static volatile std::sig_atomic_t stop_flag;

static void on_signal(int) { stop_flag = 1; }

static void print_prefix(const char *what, const GuidPrefix_t &p)
{
    std::printf("%s ", what);
    for (int i = 0; i < 12; i++)
        std::printf("%02x", p.value[i]);
    std::printf("\n");
    std::fflush(stdout);
}

// The listener's callbacks changed in Fast DDS 3: a status and the
// builtin topic data instead of one info struct.
class Listener : public DomainParticipantListener
{
public:
#if FASTDDS3
    void on_participant_discovery(DomainParticipant *, fdrtps::ParticipantDiscoveryStatus reason,
                                  const ParticipantBuiltinTopicData &info, bool &) override
    {
        using S = fdrtps::ParticipantDiscoveryStatus;
        if (reason == S::DISCOVERED_PARTICIPANT)
            print_prefix("found", info.guid.guidPrefix);
        else if (reason == S::REMOVED_PARTICIPANT || reason == S::DROPPED_PARTICIPANT)
            print_prefix("lost", info.guid.guidPrefix);
    }

    void on_data_reader_discovery(DomainParticipant *, fdrtps::ReaderDiscoveryStatus reason,
                                  const SubscriptionBuiltinTopicData &info, bool &) override
    {
        if (reason == fdrtps::ReaderDiscoveryStatus::DISCOVERED_READER)
            print_prefix("reader", info.guid.guidPrefix);
    }
#else
    void on_participant_discovery(DomainParticipant *, fdrtps::ParticipantDiscoveryInfo &&info) override
    {
        switch (info.status) {
        case fdrtps::ParticipantDiscoveryInfo::DISCOVERED_PARTICIPANT:
            print_prefix("found", info.info.m_guid.guidPrefix);
            break;
        case fdrtps::ParticipantDiscoveryInfo::REMOVED_PARTICIPANT:
        case fdrtps::ParticipantDiscoveryInfo::DROPPED_PARTICIPANT:
            print_prefix("lost", info.info.m_guid.guidPrefix);
            break;
        default:
            break;
        }
    }

    void on_subscriber_discovery(DomainParticipant *, fdrtps::ReaderDiscoveryInfo &&info) override
    {
        if (info.status == fdrtps::ReaderDiscoveryInfo::DISCOVERED_READER)
            print_prefix("reader", info.info.guid().guidPrefix);
    }
#endif
};

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: fastdisc DOMAIN RANGE SECONDS\n");
        return 2;
    }
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    int domain = std::atoi(argv[1]);
    std::string range = argv[2];
    int seconds = std::atoi(argv[3]);

    auto *factory = DomainParticipantFactory::get_instance();
    factory->load_profiles();
    DomainParticipantQos qos = factory->get_default_participant_qos();
    if (range == "OFF") {
        qos.allocation().participants.initial = 1;
        qos.allocation().participants.maximum = 1;
        qos.allocation().participants.increment = 0;
        qos.wire_protocol().builtin.metatrafficMulticastLocatorList.clear();
        Locator_t default_unicast_locator;
        qos.wire_protocol().builtin.metatrafficUnicastLocatorList.push_back(default_unicast_locator);
    } else if (range == "LOCALHOST") {
        qos.wire_protocol().builtin.metatrafficMulticastLocatorList.clear();
        Locator_t default_unicast_locator;
        qos.wire_protocol().builtin.metatrafficUnicastLocatorList.push_back(default_unicast_locator);
        qos.transport().use_builtin_transports = false;
        qos.transport().user_transports.push_back(
            std::make_shared<eprosima::fastdds::rtps::SharedMemTransportDescriptor>());
        auto udp = std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>();
        udp->maxInitialPeersRange = 32;
        qos.transport().user_transports.push_back(udp);
        Locator_t peer;
        IPLocator::setIPv4(peer, "127.0.0.1");
        qos.wire_protocol().builtin.initialPeersList.push_back(peer);
    } else if (range == "HUMBLE_LOCALHOST") {
        qos.transport().use_builtin_transports = false;
        auto udp = std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>();
        udp->interfaceWhiteList.emplace_back("127.0.0.1");
        qos.transport().user_transports.push_back(udp);
        qos.transport().user_transports.push_back(
            std::make_shared<eprosima::fastdds::rtps::SharedMemTransportDescriptor>());
    } else if (range != "SUBNET" && range != "SYSTEM_DEFAULT") {
        std::fprintf(stderr, "unknown range %s\n", range.c_str());
        return 2;
    }
    const char enclave[] = "enclave=/;";
    qos.user_data().resize(sizeof enclave - 1);
    std::memcpy(qos.user_data().data(), enclave, sizeof enclave - 1);

    Listener listener;
    DomainParticipant *pp = factory->create_participant(domain, qos, &listener);
    if (pp == nullptr) {
        std::fprintf(stderr, "create participant failed\n");
        return 1;
    }
    print_prefix("self", pp->guid().guidPrefix);
    std::fprintf(stderr, "ready\n");
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!stop_flag && std::chrono::steady_clock::now() < end)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    factory->delete_participant(pp);
    return 0;
}
