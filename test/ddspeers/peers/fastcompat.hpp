// fastcompat.hpp: what fastpeer.cpp and fastnode.cpp need that Fast DDS
// 2.9 / Fast CDR 1 (Debian 12) and Fast DDS 3.1 / Fast CDR 2 (Debian 13,
// the root of scripts/debian13-root.sh) spell differently, so that one
// source builds against both (docs/fastdds3.md lists what differs on the
// wire). FASTDDS3 is 1 when building against Fast DDS 3.
#pragma once

#include <cstddef>
#include <string>

#include <fastcdr/Cdr.h>
#include <fastdds/dds/publisher/DataWriter.hpp>

#if __has_include(<fastdds/utils/IPLocator.hpp>)
#define FASTDDS3 1
#include <fastcdr/cdr/fixed_size_string.hpp>
#include <fastdds/rtps/common/InstanceHandle.hpp>
#include <fastdds/rtps/common/Locator.hpp>
#include <fastdds/rtps/common/WriteParams.hpp>
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.hpp>
#include <fastdds/utils/IPLocator.hpp>

namespace fdrtps = eprosima::fastdds::rtps;
using FDuration = eprosima::fastdds::dds::Duration_t;
template <size_t N>
using fixed_string = eprosima::fastcdr::fixed_string<N>;
static const eprosima::fastdds::dds::ReturnCode_t RC_OK = eprosima::fastdds::dds::RETCODE_OK;
static const eprosima::fastdds::dds::ReturnCode_t RC_ERROR = eprosima::fastdds::dds::RETCODE_ERROR;
// Fast CDR 2 in XCDR version 1: plain CDR, what rmw_fastrtps writes.
static const auto CDR_MODE = eprosima::fastcdr::CdrVersion::XCDRv1;

template <class T>
static void cdr_write(eprosima::fastcdr::Cdr &c, const T &v) { c << v; }
template <class T>
static void cdr_read(eprosima::fastcdr::Cdr &c, T &v) { c >> v; }
static inline size_t cdr_len(const eprosima::fastcdr::Cdr &c) { return c.get_serialized_data_length(); }
// DataWriter::write returns a ReturnCode_t in Fast DDS 3, a bool in 2.
static inline bool write_ok(eprosima::fastdds::dds::DataWriter *w, const void *d) { return w->write(d) == RC_OK; }
static inline bool write_ok(eprosima::fastdds::dds::DataWriter *w, const void *d, fdrtps::WriteParams &p) { return w->write(d, p) == RC_OK; }
template <class T>
static void set_type_name(T *t, const char *name) { t->set_name(name); }
template <class T>
static std::string type_name(const T *t) { return t->get_name(); }
#else
#include <fastdds/rtps/common/InstanceHandle.h>
#include <fastdds/rtps/common/Locator.h>
#include <fastdds/rtps/common/WriteParams.h>
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>
#include <fastrtps/utils/IPLocator.h>
#include <fastrtps/utils/fixed_size_string.hpp>

namespace fdrtps = eprosima::fastrtps::rtps;
using FDuration = eprosima::fastrtps::Duration_t;
template <size_t N>
using fixed_string = eprosima::fastrtps::fixed_string<N>;
static const eprosima::fastrtps::types::ReturnCode_t RC_OK = eprosima::fastrtps::types::ReturnCode_t::RETCODE_OK;
static const eprosima::fastrtps::types::ReturnCode_t RC_ERROR = eprosima::fastrtps::types::ReturnCode_t::RETCODE_ERROR;
static const auto CDR_MODE = eprosima::fastcdr::Cdr::DDS_CDR;

template <class T>
static void cdr_write(eprosima::fastcdr::Cdr &c, T &v) { v.serialize(c); }
template <class T>
static void cdr_read(eprosima::fastcdr::Cdr &c, T &v) { v.deserialize(c); }
static inline size_t cdr_len(const eprosima::fastcdr::Cdr &c) { return c.getSerializedDataLength(); }
static inline bool write_ok(eprosima::fastdds::dds::DataWriter *w, void *d) { return w->write(d); }
static inline bool write_ok(eprosima::fastdds::dds::DataWriter *w, void *d, fdrtps::WriteParams &p) { return w->write(d, p); }
template <class T>
static void set_type_name(T *t, const char *name) { t->setName(name); }
template <class T>
static std::string type_name(T *t) { return t->getName(); }
#endif
