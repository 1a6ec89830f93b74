/* cycnode: a CycloneDDS peer that plays a ROS 2 node the way rmw_cyclonedds
 * does: services with the 16-byte in-band request header and clientid/
 * serviceid user data, and the ros_discovery_info graph. Built by the Go
 * package test/ddspeers (BuildNodes) with nodetypes.h/.c, idlc's output
 * for the node types, their rmw_cyclonedds wrappers (module cycwrap) and
 * the graph types of both Gid sizes. Usage: see README.md. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dds/dds.h"
#include "dds/ddsi/ddsi_cdrstream.h"
#include "dds/ddsi/ddsi_serdata.h"

#include "nodetypes.h" /* idlc output */
#include "nodehashes.h" /* type_hashes: RIHS01 of each type, by DDS name */

static void die (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fprintf (stderr, "cycnode: ");
  vfprintf (stderr, fmt, ap);
  fprintf (stderr, "\n");
  va_end (ap);
  exit (2);
}

/* malformed rejects a frame that is not what rmw_cyclonedds would send:
 * tests look for the MALFORMED line and the exit status. */
static void malformed (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fprintf (stderr, "MALFORMED: ");
  vfprintf (stderr, fmt, ap);
  fprintf (stderr, "\n");
  va_end (ap);
  exit (3);
}

static void check (dds_return_t rc, const char *what)
{
  if (rc < 0)
    die ("%s: %s", what, dds_strretcode (rc));
}

static volatile sig_atomic_t stopping;

static void on_signal (int sig)
{
  (void) sig;
  stopping = 1;
}

static void nap (double s)
{
  dds_time_t end = dds_time () + (dds_duration_t) (s * 1e9);
  while (!stopping && dds_time () < end)
    dds_sleepfor (DDS_MSECS (10));
}

/* Options of every mode; see README.md. */
#define MAX_ENDPOINTS 16
struct opts {
  const char *service, *node, *ns, *action;
  /* action-server's script */
  bool reject_goals, reject_cancels, preempt_canceled;
  const char *outcome; /* succeed, abort or hold */
  int feedback;
  double feedback_period, result_timeout;
  /* action-client's script */
  const char *goals, *joints, *cancel;
  int cancel_after, points;
  double gap, result_delay;
  bool no_result;
  /* param-server's table and param-client's calls */
  const char *params[64], *readonly[64], *calls[64];
  int nparams, nreadonly, ncalls, events;
  const char *pubs[MAX_ENDPOINTS], *subs[MAX_ENDPOINTS];
  int npubs, nsubs;
  int count, gid_size;
  bool typehash;
  double lease;
  uint32_t domain;
  double timeout, linger, reply_wait;
};

static double num_arg (int argc, char **argv, int *i)
{
  if (*i + 1 >= argc)
    die ("%s needs a value", argv[*i]);
  char *end;
  double v = strtod (argv[++*i], &end);
  if (*end || v < 0)
    die ("bad value for %s", argv[*i - 1]);
  return v;
}

/* choice returns false for the first of two words, true for the second. */
static bool choice (const char *v, const char *first, const char *second, const char *flag)
{
  if (strcmp (v, first) == 0)
    return false;
  if (strcmp (v, second) != 0)
    die ("%s is %s or %s", flag, first, second);
  return true;
}

static struct opts parse_opts (int argc, char **argv)
{
  struct opts o = { .ns = "/", .gid_size = 16, .timeout = 30, .linger = 1, .reply_wait = 0.1,
                    .outcome = "succeed", .feedback = 3, .feedback_period = 0.1, .result_timeout = 10,
                    .joints = "j1,j2", .cancel_after = 1 };
  for (int i = 2; i < argc; i++)
  {
    const char *a = argv[i];
    if (strcmp (a, "--service") == 0 && i + 1 < argc) o.service = argv[++i];
    else if (strcmp (a, "--node") == 0 && i + 1 < argc) o.node = argv[++i];
    else if (strcmp (a, "--namespace") == 0 && i + 1 < argc) o.ns = argv[++i];
    else if (strcmp (a, "--pub") == 0 && i + 1 < argc && o.npubs < MAX_ENDPOINTS) o.pubs[o.npubs++] = argv[++i];
    else if (strcmp (a, "--sub") == 0 && i + 1 < argc && o.nsubs < MAX_ENDPOINTS) o.subs[o.nsubs++] = argv[++i];
    else if (strcmp (a, "--count") == 0) o.count = (int) num_arg (argc, argv, &i);
    else if (strcmp (a, "--typehash") == 0) o.typehash = true;
    else if (strcmp (a, "--lease") == 0) o.lease = num_arg (argc, argv, &i);
    else if (strcmp (a, "--gid-size") == 0) o.gid_size = (int) num_arg (argc, argv, &i);
    else if (strcmp (a, "--domain") == 0) o.domain = (uint32_t) num_arg (argc, argv, &i);
    else if (strcmp (a, "--timeout") == 0) o.timeout = num_arg (argc, argv, &i);
    else if (strcmp (a, "--linger") == 0) o.linger = num_arg (argc, argv, &i);
    else if (strcmp (a, "--reply-wait") == 0) o.reply_wait = num_arg (argc, argv, &i);
    else if (strcmp (a, "--action") == 0 && i + 1 < argc) o.action = argv[++i];
    else if (strcmp (a, "--goal") == 0 && i + 1 < argc) o.reject_goals = choice (argv[++i], "accept", "reject", a);
    else if (strcmp (a, "--cancel") == 0 && i + 1 < argc) o.reject_cancels = choice (argv[++i], "accept", "reject", a);
    else if (strcmp (a, "--preempt") == 0 && i + 1 < argc) o.preempt_canceled = choice (argv[++i], "aborted", "canceled", a);
    else if (strcmp (a, "--outcome") == 0 && i + 1 < argc) o.outcome = argv[++i];
    else if (strcmp (a, "--feedback") == 0) o.feedback = (int) num_arg (argc, argv, &i);
    else if (strcmp (a, "--feedback-period") == 0) o.feedback_period = num_arg (argc, argv, &i);
    else if (strcmp (a, "--result-timeout") == 0) o.result_timeout = num_arg (argc, argv, &i);
    else if (strcmp (a, "--goals") == 0 && i + 1 < argc) o.goals = argv[++i];
    else if (strcmp (a, "--joints") == 0 && i + 1 < argc) o.joints = argv[++i];
    else if (strcmp (a, "--cancel-goal") == 0 && i + 1 < argc) o.cancel = argv[++i];
    else if (strcmp (a, "--cancel-after") == 0) o.cancel_after = (int) num_arg (argc, argv, &i);
    else if (strcmp (a, "--gap") == 0) o.gap = num_arg (argc, argv, &i);
    else if (strcmp (a, "--result-delay") == 0) o.result_delay = num_arg (argc, argv, &i);
    else if (strcmp (a, "--no-result") == 0) o.no_result = true;
    else if (strcmp (a, "--points") == 0) o.points = (int) num_arg (argc, argv, &i);
    else if (strcmp (a, "--param") == 0 && i + 1 < argc && o.nparams < 64) o.params[o.nparams++] = argv[++i];
    else if (strcmp (a, "--read-only") == 0 && i + 1 < argc && o.nreadonly < 64) o.readonly[o.nreadonly++] = argv[++i];
    else if (strcmp (a, "--call") == 0 && i + 1 < argc && o.ncalls < 64) o.calls[o.ncalls++] = argv[++i];
    else if (strcmp (a, "--events") == 0) o.events = (int) num_arg (argc, argv, &i);
    else die ("unknown option %s", a);
  }
  if (o.gid_size != 16 && o.gid_size != 24)
    die ("--gid-size is 16 (Jazzy and later) or 24 (Humble)");
  if (strcmp (o.outcome, "succeed") && strcmp (o.outcome, "abort") && strcmp (o.outcome, "hold"))
    die ("--outcome is succeed, abort or hold");
  return o;
}

/* ---- JSON output ---- */

static void json_str (const char *s)
{
  putchar ('"');
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
  {
    if (*p == '"' || *p == '\\')
      printf ("\\%c", *p);
    else if (*p < 0x20)
      printf ("\\u%04x", *p);
    else
      putchar (*p);
  }
  putchar ('"');
}

static void json_hex (const void *b, size_t n)
{
  putchar ('"');
  for (size_t i = 0; i < n; i++)
    printf ("%02x", ((const unsigned char *) b)[i]);
  putchar ('"');
}

/* ---- topics under rmw's type names, and raw frames ---- */

/* ros_topic creates a topic of a generated type registered under another
 * type name (a cycwrap wrapper or a graph type under rmw's name). */
static dds_entity_t ros_topic (dds_entity_t pp, const dds_topic_descriptor_t *d, const char *name, const char *type_name)
{
  dds_topic_descriptor_t *c = malloc (sizeof *c);
  memcpy (c, d, sizeof *c);
  c->m_typename = type_name; /* the one member that is not const */
  dds_entity_t tp = dds_create_topic (pp, c, name, NULL, NULL);
  if (tp < 0)
    die ("create topic %s: %s", name, dds_strretcode (tp));
  return tp;
}

/* A reader of raw_topic takes any payload of at least one byte: its
 * type is a single octet (std_srvs' empty Trigger request, rosidl's dummy
 * member), so Cyclone's own check of incoming data accepts whatever comes
 * and the peer checks each frame itself (decode), where Cyclone would drop
 * a bad one in silence. */
static dds_entity_t raw_topic (dds_entity_t pp, const char *name, const char *type_name)
{
  return ros_topic (pp, &std_srvs_srv_dds__Trigger_Request__desc, name, type_name);
}

/* decode checks that a raw frame is one XCDR1 sample of d, nothing more,
 * and reads it into sample (zeroed, d->m_size bytes); anything else is
 * MALFORMED. */
static void decode (struct ddsi_serdata *sd, const dds_topic_descriptor_t *d, void *sample, const char *what)
{
  uint32_t size = ddsi_serdata_size (sd);
  unsigned char *b = malloc (size + 1);
  ddsi_serdata_to_ser (sd, 0, size, b);
  if (size < 4)
    malformed ("%s: %u bytes, no encapsulation header", what, size);
  bool bswap;
  if (b[0] == 0 && b[1] == 1)
    bswap = (DDSRT_ENDIAN != DDSRT_LITTLE_ENDIAN);
  else if (b[0] == 0 && b[1] == 0)
    bswap = (DDSRT_ENDIAN != DDSRT_BIG_ENDIAN);
  else
    malformed ("%s: encapsulation %02x%02x is not plain CDR", what, b[0], b[1]);
  uint32_t body = size - 4, pad = b[3] & 3;
  if (pad > body)
    malformed ("%s: padding %u longer than the %u-byte payload", what, pad, body);
  body -= pad;
  uint32_t off = 0;
  if (dds_stream_normalize_data ((char *) b + 4, &off, body, bswap, 1, d->m_ops) == NULL)
    malformed ("%s: a %u-byte payload that does not decode", what, body);
  if (body - off > 3)
    malformed ("%s: %u bytes left after the sample", what, body - off);
  dds_istream_t is;
  dds_istream_init (&is, body, b + 4, 1);
  dds_stream_read (&is, sample, d->m_ops);
  dds_istream_fini (&is);
  free (b);
}

/* take_frame takes the next sample with data from a raw reader and
 * decodes it as d; it returns false when there is none. */
static bool take_frame (dds_entity_t rd, const dds_topic_descriptor_t *d, void *sample, dds_sample_info_t *si, const char *what)
{
  struct ddsi_serdata *sd = NULL;
  while (dds_takecdr (rd, &sd, 1, si, DDS_ANY_STATE) > 0)
  {
    bool valid = si->valid_data;
    if (valid)
      decode (sd, d, sample, what);
    ddsi_serdata_unref (sd);
    if (valid)
      return true;
  }
  return false;
}

/* ---- the participant and the graph ---- */

static dds_entity_t make_participant (const struct opts *o)
{
  /* rmw's participants say enclave=/; and Cyclone's rmw graph only adds
   * participants that do. */
  dds_qos_t *q = dds_create_qos ();
  const char *ud = "enclave=/;";
  dds_qset_userdata (q, ud, strlen (ud));
  /* --lease: the participant's lease (Cyclone's default is 10 s), so a
   * test sees a killed peer dropped sooner. */
  if (o->lease > 0)
    dds_qset_liveliness (q, DDS_LIVELINESS_AUTOMATIC, (dds_duration_t) (o->lease * 1e9));
  dds_entity_t pp = dds_create_participant (o->domain, q, NULL);
  check (pp, "create participant");
  dds_delete_qos (q);
  return pp;
}

static dds_qos_t *qos_reliable (int depth, bool transient_local, bool keep_all)
{
  dds_qos_t *q = dds_create_qos ();
  dds_qset_reliability (q, DDS_RELIABILITY_RELIABLE, DDS_SECS (10));
  dds_qset_durability (q, transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
  dds_qset_history (q, keep_all ? DDS_HISTORY_KEEP_ALL : DDS_HISTORY_KEEP_LAST, depth);
  dds_qset_durability_service (q, 0, keep_all ? DDS_HISTORY_KEEP_ALL : DDS_HISTORY_KEEP_LAST, depth,
                               DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
  return q;
}

/* with_typehash: endpoints carry typehash=RIHS01_…; in their user data,
 * as rmw does since Iron (--typehash; Humble sends none). */
static bool with_typehash;

/* endpoint creates a reader or writer on tp with q, its user data extra
 * (clientid=…;) and, with --typehash, the type's hash after it, as
 * rmw_cyclonedds writes them. */
static dds_entity_t endpoint (dds_entity_t pp, dds_entity_t tp, const dds_qos_t *q, const char *extra, bool writer)
{
  char type[256], ud[512];
  check (dds_get_type_name (tp, type, sizeof type), "type name");
  const char *hash = NULL;
  for (size_t i = 0; with_typehash && i < sizeof type_hashes / sizeof type_hashes[0]; i++)
    if (strcmp (type_hashes[i][0], type) == 0)
      hash = type_hashes[i][1];
  if (with_typehash && hash == NULL)
    die ("no type hash for %s", type);
  snprintf (ud, sizeof ud, "%s%s%s%s", extra ? extra : "", hash ? "typehash=" : "", hash ? hash : "", hash ? ";" : "");
  dds_qos_t *c = dds_create_qos ();
  dds_copy_qos (c, q);
  if (ud[0])
    dds_qset_userdata (c, ud, strlen (ud));
  dds_entity_t e = writer ? dds_create_writer (pp, tp, c, NULL) : dds_create_reader (pp, tp, c, NULL);
  dds_delete_qos (c);
  if (e < 0)
    die ("create %s: %s", writer ? "writer" : "reader", dds_strretcode (e));
  return e;
}

#define GRAPH_TYPE "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"

/* A node's endpoints as ros_discovery_info lists them. */
struct node_eps {
  dds_entity_t readers[2 * MAX_ENDPOINTS + 8], writers[2 * MAX_ENDPOINTS + 8];
  int nreaders, nwriters;
};

static void gid_of (dds_entity_t e, void *data, size_t size)
{
  dds_guid_t g;
  check (dds_get_guid (e, &g), "get guid");
  memset (data, 0, size);
  memcpy (data, g.v, sizeof g.v);
}

/* print_graph prints one ParticipantEntitiesInfo as a JSON line. */
#define PRINT_GRAPH(N)                                                                        \
  static void print_graph##N (const rmw_dds_common_gid##N##_msg_dds__ParticipantEntitiesInfo_ *m) \
  {                                                                                           \
    printf ("{\"gid\":");                                                                     \
    json_hex (m->gid.data, N);                                                                \
    printf (",\"nodes\":[");                                                                  \
    for (uint32_t i = 0; i < m->node_entities_info_seq._length; i++)                          \
    {                                                                                         \
      const rmw_dds_common_gid##N##_msg_dds__NodeEntitiesInfo_ *n = &m->node_entities_info_seq._buffer[i]; \
      printf ("%s{\"namespace\":", i ? "," : "");                                             \
      json_str (n->node_namespace);                                                           \
      printf (",\"name\":");                                                                  \
      json_str (n->node_name);                                                                \
      printf (",\"readers\":[");                                                              \
      for (uint32_t j = 0; j < n->reader_gid_seq._length; j++)                                \
      {                                                                                       \
        printf ("%s", j ? "," : "");                                                          \
        json_hex (n->reader_gid_seq._buffer[j].data, N);                                      \
      }                                                                                       \
      printf ("],\"writers\":[");                                                             \
      for (uint32_t j = 0; j < n->writer_gid_seq._length; j++)                                \
      {                                                                                       \
        printf ("%s", j ? "," : "");                                                          \
        json_hex (n->writer_gid_seq._buffer[j].data, N);                                      \
      }                                                                                       \
      printf ("]}");                                                                          \
    }                                                                                         \
    printf ("]}\n");                                                                          \
    fflush (stdout);                                                                          \
  }
PRINT_GRAPH (16)
PRINT_GRAPH (24)

/* announce publishes the node on ros_discovery_info (reliable,
 * transient_local, keep last 1, as rmw does) and prints what it sent as
 * a JSON line; it returns the writer. */
#define ANNOUNCE(N)                                                                           \
  static dds_entity_t announce##N (dds_entity_t pp, const struct opts *o, const struct node_eps *eps) \
  {                                                                                           \
    dds_entity_t tp = ros_topic (pp, &rmw_dds_common_gid##N##_msg_dds__ParticipantEntitiesInfo__desc, "ros_discovery_info", GRAPH_TYPE); \
    dds_qos_t *q = qos_reliable (1, true, false);                                             \
    dds_entity_t wr = endpoint (pp, tp, q, NULL, true);                                       \
    dds_delete_qos (q);                                                                       \
    rmw_dds_common_gid##N##_msg_dds__ParticipantEntitiesInfo_ m;                              \
    memset (&m, 0, sizeof m);                                                                 \
    gid_of (pp, m.gid.data, N);                                                               \
    rmw_dds_common_gid##N##_msg_dds__NodeEntitiesInfo_ n;                                     \
    memset (&n, 0, sizeof n);                                                                 \
    snprintf (n.node_namespace, sizeof n.node_namespace, "%s", o->ns);                        \
    snprintf (n.node_name, sizeof n.node_name, "%s", o->node);                                \
    rmw_dds_common_gid##N##_msg_dds__Gid_ rg[sizeof eps->readers / sizeof eps->readers[0]];   \
    rmw_dds_common_gid##N##_msg_dds__Gid_ wg[sizeof eps->writers / sizeof eps->writers[0]];   \
    for (int i = 0; i < eps->nreaders; i++)                                                   \
      gid_of (eps->readers[i], rg[i].data, N);                                                \
    for (int i = 0; i < eps->nwriters; i++)                                                   \
      gid_of (eps->writers[i], wg[i].data, N);                                                \
    n.reader_gid_seq._length = n.reader_gid_seq._maximum = (uint32_t) eps->nreaders;          \
    n.reader_gid_seq._buffer = rg;                                                            \
    n.writer_gid_seq._length = n.writer_gid_seq._maximum = (uint32_t) eps->nwriters;          \
    n.writer_gid_seq._buffer = wg;                                                            \
    m.node_entities_info_seq._length = m.node_entities_info_seq._maximum = 1;                 \
    m.node_entities_info_seq._buffer = &n;                                                    \
    check (dds_write (wr, &m), "write ros_discovery_info");                                   \
    print_graph##N (&m);                                                                      \
    return wr;                                                                                \
  }
ANNOUNCE (16)
ANNOUNCE (24)

/* announce_node announces the node of --node, if any, with eps. */
static void announce_node (dds_entity_t pp, const struct opts *o, const struct node_eps *eps)
{
  if (o->node == NULL)
    return;
  if (o->gid_size == 24)
    announce24 (pp, o, eps);
  else
    announce16 (pp, o, eps);
  fprintf (stderr, "cycnode: announced %s\n", o->node);
}

/* graph: prints each ros_discovery_info sample (every participant's
 * nodes) as a JSON line, until --count samples (0: until stopped). */
static int graph (dds_entity_t pp, const struct opts *o)
{
  dds_entity_t tp = raw_topic (pp, "ros_discovery_info", GRAPH_TYPE);
  dds_qos_t *q = qos_reliable (1, true, true);
  dds_entity_t rd = endpoint (pp, tp, q, NULL, false);
  dds_delete_qos (q);
  fprintf (stderr, "cycnode: ready\n");
  const dds_topic_descriptor_t *d = o->gid_size == 24 ? &rmw_dds_common_gid24_msg_dds__ParticipantEntitiesInfo__desc
                                                      : &rmw_dds_common_gid16_msg_dds__ParticipantEntitiesInfo__desc;
  int got = 0;
  while (!stopping && (o->count == 0 || got < o->count))
  {
    void *m = calloc (1, d->m_size);
    dds_sample_info_t si;
    if (take_frame (rd, d, m, &si, o->gid_size == 24 ? "ros_discovery_info (Gid of 24 bytes)" : "ros_discovery_info (Gid of 16 bytes)"))
    {
      got++;
      if (o->gid_size == 24)
        print_graph24 (m);
      else
        print_graph16 (m);
    }
    else
      dds_sleepfor (DDS_MSECS (20));
    dds_stream_free_sample (m, d->m_ops);
    free (m);
  }
  return 0;
}

/* announce_mode: a node with --pub/--sub topics (std_msgs/msg/String),
 * announced until stopped. */
static int announce_mode (dds_entity_t pp, struct opts *o)
{
  if (o->node == NULL)
    die ("announce needs --node");
  struct node_eps eps = { .nreaders = 0 };
  dds_qos_t *q = qos_reliable (10, false, false);
  for (int i = 0; i < o->npubs; i++)
  {
    dds_entity_t tp = dds_create_topic (pp, &std_msgs_msg_dds__String__desc, o->pubs[i], NULL, NULL);
    check (tp, "create topic");
    eps.writers[eps.nwriters++] = endpoint (pp, tp, q, NULL, true);
  }
  for (int i = 0; i < o->nsubs; i++)
  {
    dds_entity_t tp = dds_create_topic (pp, &std_msgs_msg_dds__String__desc, o->subs[i], NULL, NULL);
    check (tp, "create topic");
    eps.readers[eps.nreaders++] = endpoint (pp, tp, q, NULL, false);
  }
  dds_delete_qos (q);
  announce_node (pp, o, &eps);
  while (!stopping)
    nap (1);
  return 0;
}

/* ---- services in rmw_cyclonedds's dialect ---- */

/* A service's four types: the wrappers on the wire and the messages. */
struct svc_types {
  const dds_topic_descriptor_t *req_wrap, *req, *rep_wrap, *rep;
};
#define SVC_TYPES(T) { &cycwrap_##T##_Request__desc, &T##_Request__desc, &cycwrap_##T##_Response__desc, &T##_Response__desc }

struct svc {
  dds_entity_t wr, rd;
  struct svc_types ty;
  bool server;
  char req_what[256], rep_what[256]; /* for MALFORMED lines */
};

/* csid is the id rmw_cyclonedds puts in user data: the participant's
 * GUID prefix and a per-process counter, big endian; printed as rmw's
 * csid_to_string does (the first byte in a field of 2, space filled, the
 * rest unpadded, all hex, dot separated). */
static void csid (dds_entity_t pp, char *out, size_t size)
{
  static uint32_t counter;
  dds_guid_t g;
  check (dds_get_guid (pp, &g), "participant guid");
  uint32_t x = ++counter;
  unsigned char id[16];
  memcpy (id, g.v, 12);
  for (int i = 0; i < 4; i++)
    id[12 + i] = (unsigned char) (x >> (24 - 8 * i));
  int n = snprintf (out, size, "%2x", id[0]);
  for (int i = 1; i < 16; i++)
    n += snprintf (out + n, size - (size_t) n, ".%x", id[i]);
}

static bool user_data_key (const dds_qos_t *q, const char *key, char *val, size_t size)
{
  void *ud;
  size_t sz;
  if (q == NULL || !dds_qget_userdata (q, &ud, &sz) || ud == NULL)
    return false;
  char *s = calloc (1, sz + 1);
  memcpy (s, ud, sz);
  dds_free (ud);
  size_t kl = strlen (key);
  bool found = false;
  for (char *p = s; p && *p; p = strchr (p, ';') ? strchr (p, ';') + 1 : NULL)
  {
    if (strncmp (p, key, kl) == 0 && p[kl] == '=')
    {
      char *end = strchr (p, ';');
      size_t n = end ? (size_t) (end - p - (ptrdiff_t) kl - 1) : strlen (p + kl + 1);
      if (n >= size)
        n = size - 1;
      memcpy (val, p + kl + 1, n);
      val[n] = 0;
      found = true;
      break;
    }
  }
  free (s);
  return found;
}

/* svc_open makes a service's or a client's two endpoints: rq/<name>Request
 * and rr/<name>Reply, services QoS (reliable, volatile, keep last 10),
 * user data serviceid=…; or clientid=…;. What it reads is a raw topic
 * (decode checks every frame). */
static void svc_open (struct svc *s, dds_entity_t pp, const char *service, struct svc_types ty, bool server)
{
  s->ty = ty;
  s->server = server;
  snprintf (s->req_what, sizeof s->req_what, "request (rmw_cyclonedds: 16-byte header, then %s)", ty.req->m_typename);
  snprintf (s->rep_what, sizeof s->rep_what, "reply (rmw_cyclonedds: 16-byte header, then %s)", ty.rep->m_typename);
  const char *name = service[0] == '/' ? service + 1 : service;
  char rq[512], rr[512], id[80], ud[100];
  snprintf (rq, sizeof rq, "rq/%sRequest", name);
  snprintf (rr, sizeof rr, "rr/%sReply", name);
  csid (pp, id, sizeof id);
  snprintf (ud, sizeof ud, "%s=%s;", server ? "serviceid" : "clientid", id);
  dds_qos_t *q = qos_reliable (10, false, false);
  dds_entity_t wtp, rtp;
  if (server)
  {
    rtp = raw_topic (pp, rq, ty.req->m_typename);
    wtp = ros_topic (pp, ty.rep_wrap, rr, ty.rep->m_typename);
  }
  else
  {
    wtp = ros_topic (pp, ty.req_wrap, rq, ty.req->m_typename);
    rtp = raw_topic (pp, rr, ty.rep->m_typename);
  }
  s->wr = endpoint (pp, wtp, q, ud, true);
  s->rd = endpoint (pp, rtp, q, ud, false);
  dds_delete_qos (q);
}

static void svc_eps (const struct svc *s, struct node_eps *eps)
{
  eps->readers[eps->nreaders++] = s->rd;
  eps->writers[eps->nwriters++] = s->wr;
}

/* client_reader_matched is rmw_cyclonedds's check before a reply: the
 * request's writer gone → -1; without a clientid → 1 (assumed fine);
 * else 1 once the reply writer has matched a reader of that clientid. */
static int client_reader_matched (const struct svc *s, dds_instance_handle_t reqwr)
{
  dds_builtintopic_endpoint_t *wr = dds_get_matched_publication_data (s->rd, reqwr);
  if (wr == NULL)
    return -1;
  char id[80];
  bool has = user_data_key (wr->qos, "clientid", id, sizeof id);
  dds_builtintopic_free_endpoint (wr);
  if (!has)
    return 1;
  dds_instance_handle_t ihs[64];
  dds_return_t n = dds_get_matched_subscriptions (s->wr, ihs, 64);
  for (dds_return_t i = 0; i < n && i < 64; i++)
  {
    dds_builtintopic_endpoint_t *rd = dds_get_matched_subscription_data (s->wr, ihs[i]);
    char rid[80];
    bool same = rd && user_data_key (rd->qos, "clientid", rid, sizeof rid) && strcmp (rid, id) == 0;
    if (rd)
      dds_builtintopic_free_endpoint (rd);
    if (same)
      return 1;
  }
  return 0;
}

/* reply writes a reply to the request of si, after waiting up to
 * --reply-wait for the client's reader as rmw does (100 ms); it returns
 * false when rmw would have dropped it. */
static bool reply (const struct svc *s, const struct opts *o, dds_instance_handle_t reqwr, void *rep_wrap)
{
  dds_time_t end = dds_time () + (dds_duration_t) (o->reply_wait * 1e9);
  int st;
  while ((st = client_reader_matched (s, reqwr)) == 0 && dds_time () < end)
    dds_sleepfor (DDS_MSECS (10));
  if (st != 1)
  {
    fprintf (stderr, "cycnode: reply dropped: the client's reader %s\n", st < 0 ? "is gone" : "did not match in time");
    return false;
  }
  check (dds_write (s->wr, rep_wrap), "write reply");
  return true;
}

/* wait_matched waits until the endpoints of s see a peer each. */
static void wait_matched (const struct svc *s, double timeout)
{
  dds_time_t end = dds_time () + (dds_duration_t) (timeout * 1e9);
  for (;;)
  {
    dds_publication_matched_status_t p;
    dds_subscription_matched_status_t r;
    check (dds_get_publication_matched_status (s->wr, &p), "matched status");
    check (dds_get_subscription_matched_status (s->rd, &r), "matched status");
    if (p.current_count > 0 && r.current_count > 0)
      break;
    if (stopping)
      exit (0);
    if (dds_time () > end)
      die ("timed out waiting for the %s", s->server ? "client" : "service");
    dds_sleepfor (DDS_MSECS (10));
  }
  fprintf (stderr, "cycnode: matched\n");
}

/* serve runs a service's loop: handle is called for each request with
 * the request wrapper and the reply wrapper (its header already copied)
 * and returns after filling the reply. Stops after --count requests
 * (0: until stopped) or --timeout seconds without one. */
typedef void (*handler) (int call, const void *req, void *rep);

static void serve (const struct svc *s, const struct opts *o, handler h)
{
  dds_time_t deadline = dds_time () + (dds_duration_t) (o->timeout * 1e9);
  int calls = 0;
  while (!stopping && (o->count == 0 || calls < o->count))
  {
    void *req = calloc (1, s->ty.req_wrap->m_size), *rep = calloc (1, s->ty.rep_wrap->m_size);
    dds_sample_info_t si;
    if (take_frame (s->rd, s->ty.req_wrap, req, &si, s->req_what))
    {
      calls++;
      /* The header goes back as it came: the client matches on it. */
      memcpy (rep, req, 2 * sizeof (uint64_t));
      h (calls, req, rep);
      bool sent = reply (s, o, si.publication_handle, rep);
      printf ("{\"call\":%d,\"client\":\"%016" PRIx64 "\",\"seq\":%" PRId64 ",\"replied\":%s}\n",
              calls, ((uint64_t *) req)[0], ((int64_t *) req)[1], sent ? "true" : "false");
      fflush (stdout);
      deadline = dds_time () + (dds_duration_t) (o->timeout * 1e9);
    }
    else
      dds_sleepfor (DDS_MSECS (5));
    dds_stream_free_sample (req, s->ty.req_wrap->m_ops);
    dds_stream_free_sample (rep, s->ty.rep_wrap->m_ops);
    free (req);
    free (rep);
    if (o->timeout > 0 && dds_time () > deadline)
      die ("no request for %g s", o->timeout);
  }
}

/* call_idle, when set, runs while call waits (the action client takes
 * feedback and status then). */
static void (*call_idle) (void);

/* call sends one request (req, a wrapper whose header call fills) and
 * waits for its reply into rep; replies to other clients are skipped, as
 * rmw_cyclonedds does (it matches the header's guid). The seq counts
 * requests across the process's clients from 1, as rmw's does; call
 * returns it. */
static int64_t call (const struct svc *s, const struct opts *o, void *req, void *rep)
{
  static int64_t next_seq;
  dds_instance_handle_t ih;
  check (dds_get_instance_handle (s->wr, &ih), "instance handle");
  int64_t seq = ++next_seq;
  ((uint64_t *) req)[0] = ih;
  ((int64_t *) req)[1] = seq;
  check (dds_write (s->wr, req), "write request");
  dds_time_t end = dds_time () + (dds_duration_t) (o->timeout * 1e9);
  for (;;)
  {
    dds_sample_info_t si;
    memset (rep, 0, s->ty.rep_wrap->m_size);
    if (take_frame (s->rd, s->ty.rep_wrap, rep, &si, s->rep_what))
    {
      if (((uint64_t *) rep)[0] == ih && ((int64_t *) rep)[1] == seq)
        return seq;
      dds_stream_free_sample (rep, s->ty.rep_wrap->m_ops);
      continue;
    }
    if (stopping)
      exit (0);
    if (dds_time () > end)
      die ("no reply to request %" PRId64 " in %g s", seq, o->timeout);
    if (call_idle)
      call_idle ();
    dds_sleepfor (DDS_MSECS (5));
  }
}

/* ---- std_srvs/srv/Trigger ---- */

static void trigger_handle (int n, const void *req, void *rep)
{
  (void) req;
  cycwrap_std_srvs_srv_dds__Trigger_Response_ *r = rep;
  char msg[64];
  snprintf (msg, sizeof msg, "cyclonedds call %d", n);
  r->data.success = true;
  r->data.message = dds_string_dup (msg);
}

static const struct svc_types trigger_types = SVC_TYPES (std_srvs_srv_dds__Trigger);

static int trigger_server (dds_entity_t pp, const struct opts *o)
{
  struct svc s;
  svc_open (&s, pp, o->service, trigger_types, true);
  struct node_eps eps = { .nreaders = 0 };
  svc_eps (&s, &eps);
  announce_node (pp, o, &eps);
  fprintf (stderr, "cycnode: ready\n");
  serve (&s, o, trigger_handle);
  nap (o->linger);
  return 0;
}

static int trigger_client (dds_entity_t pp, const struct opts *o)
{
  struct svc s;
  svc_open (&s, pp, o->service, trigger_types, false);
  struct node_eps eps = { .nreaders = 0 };
  svc_eps (&s, &eps);
  announce_node (pp, o, &eps);
  fprintf (stderr, "cycnode: ready\n");
  wait_matched (&s, o->timeout);
  int n = o->count > 0 ? o->count : 1;
  for (int i = 1; i <= n && !stopping; i++)
  {
    cycwrap_std_srvs_srv_dds__Trigger_Request_ req;
    cycwrap_std_srvs_srv_dds__Trigger_Response_ rep;
    memset (&req, 0, sizeof req);
    int64_t seq = call (&s, o, &req, &rep);
    printf ("{\"call\":%d,\"seq\":%" PRId64 ",\"success\":%s,\"message\":", i, seq, rep.data.success ? "true" : "false");
    json_str (rep.data.message ? rep.data.message : "");
    printf ("}\n");
    fflush (stdout);
    dds_stream_free_sample (&rep, trigger_types.rep_wrap->m_ops);
  }
  return 0;
}

/* ---- control_msgs/action/FollowJointTrajectory server ---- */

/* Goal status codes (action_msgs/msg/GoalStatus). */
enum { ST_UNKNOWN = 0, ST_ACCEPTED, ST_EXECUTING, ST_CANCELING, ST_SUCCEEDED, ST_CANCELED, ST_ABORTED };

#define FJT(x) control_msgs_action_dds__FollowJointTrajectory_##x
#define MAX_GOALS 1024

struct goal {
  unsigned char id[16];
  builtin_interfaces_msg_dds__Time_ stamp; /* accepted at */
  int8_t status;
  int feedback_sent;
  dds_time_t next;  /* next feedback or outcome */
  dds_time_t ended; /* 0 while live */
  bool forgotten;
  int32_t error_code;
  const char *error_string;
  dds_sequence_string joints;
};

/* A get_result request waiting for its goal to end. */
struct pending {
  unsigned char id[16];
  uint64_t guid;
  int64_t seq;
  dds_instance_handle_t reqwr;
};

struct action {
  const struct opts *o;
  struct svc send, cancel, result;
  dds_entity_t feedback, status;
  struct goal goals[MAX_GOALS];
  int ngoals;
  unsigned char (*seen)[16]; /* every goal id ever received */
  size_t nseen, capseen;
  struct pending pend[MAX_GOALS];
  int npend;
};

static void print_uuid (const unsigned char *u)
{
  printf ("\"");
  for (int i = 0; i < 16; i++)
    printf ("%s%02x", (i == 4 || i == 6 || i == 8 || i == 10) ? "-" : "", u[i]);
  printf ("\"");
}

static bool zero_uuid (const unsigned char *u)
{
  for (int i = 0; i < 16; i++)
    if (u[i])
      return false;
  return true;
}

static builtin_interfaces_msg_dds__Time_ now_stamp (void)
{
  dds_time_t t = dds_time ();
  return (builtin_interfaces_msg_dds__Time_) { .sec = (int32_t) (t / DDS_NSECS_IN_SEC), .nanosec = (uint32_t) (t % DDS_NSECS_IN_SEC) };
}

static bool terminal (int8_t st)
{
  return st >= ST_SUCCEEDED;
}

static struct goal *find_goal (struct action *a, const unsigned char *id)
{
  for (int i = 0; i < a->ngoals; i++)
    if (!a->goals[i].forgotten && memcmp (a->goals[i].id, id, 16) == 0)
      return &a->goals[i];
  return NULL;
}

/* publish_status writes every goal the server still knows, as rcl does
 * after each change (transient_local, keep last 1: a late reader gets
 * the latest list). */
static void publish_status (struct action *a)
{
  action_msgs_msg_dds__GoalStatus_ *list = calloc ((size_t) a->ngoals + 1, sizeof *list);
  uint32_t n = 0;
  for (int i = 0; i < a->ngoals; i++)
  {
    struct goal *g = &a->goals[i];
    if (g->forgotten)
      continue;
    memcpy (list[n].goal_info.goal_id.uuid, g->id, 16);
    list[n].goal_info.stamp = g->stamp;
    list[n].status = g->status;
    n++;
  }
  action_msgs_msg_dds__GoalStatusArray_ m = { .status_list = { ._length = n, ._maximum = n, ._buffer = list } };
  check (dds_write (a->status, &m), "write status");
  free (list);
}

static void event (const char *name, const unsigned char *id)
{
  printf ("{\"event\":\"%s\",\"goal_id\":", name);
  print_uuid (id);
}

/* answer_result replies to one get_result request. */
static void answer_result (struct action *a, uint64_t guid, int64_t seq, dds_instance_handle_t reqwr, const unsigned char *id)
{
  struct goal *g = find_goal (a, id);
  cycwrap_control_msgs_action_dds__FollowJointTrajectory_GetResult_Response_ rep;
  memset (&rep, 0, sizeof rep);
  rep.guid = guid;
  rep.seq = seq;
  rep.data.status = g ? g->status : ST_UNKNOWN;
  rep.data.result.error_code = g ? g->error_code : 0;
  rep.data.result.error_string = (char *) (g && g->error_string ? g->error_string : "");
  bool sent = reply (&a->result, a->o, reqwr, &rep);
  event ("get_result", id);
  printf (",\"status\":%d,\"replied\":%s}\n", rep.data.status, sent ? "true" : "false");
  fflush (stdout);
}

/* finish ends a goal with a terminal status and answers the get_result
 * requests that waited for it. */
static void finish (struct action *a, struct goal *g, int8_t status, int32_t code, const char *why)
{
  g->status = status;
  g->error_code = code;
  g->error_string = why;
  g->ended = dds_time ();
  event ("result", g->id);
  printf (",\"status\":%d,\"error_code\":%d,\"error_string\":", status, code);
  json_str (why);
  printf ("}\n");
  fflush (stdout);
  publish_status (a);
  for (int i = 0; i < a->npend;)
  {
    if (memcmp (a->pend[i].id, g->id, 16) == 0)
    {
      answer_result (a, a->pend[i].guid, a->pend[i].seq, a->pend[i].reqwr, g->id);
      a->pend[i] = a->pend[--a->npend];
    }
    else
      i++;
  }
}

static void send_feedback (struct action *a, struct goal *g)
{
  FJT (FeedbackMessage_) m;
  memset (&m, 0, sizeof m);
  memcpy (m.goal_id.uuid, g->id, 16);
  m.feedback.header.stamp = now_stamp ();
  m.feedback.header.frame_id = "";
  m.feedback.joint_names = g->joints;
  check (dds_write (a->feedback, &m), "write feedback");
  g->feedback_sent++;
  event ("feedback", g->id);
  printf (",\"n\":%d}\n", g->feedback_sent);
  fflush (stdout);
}

static void on_send_goal (struct action *a, const cycwrap_control_msgs_action_dds__FollowJointTrajectory_SendGoal_Request_ *req, dds_instance_handle_t reqwr)
{
  const unsigned char *id = req->data.goal_id.uuid;
  for (size_t i = 0; i < a->nseen; i++)
    if (memcmp (a->seen[i], id, 16) == 0)
    {
      fprintf (stderr, "DUPLICATE GOAL UUID ");
      for (int j = 0; j < 16; j++)
        fprintf (stderr, "%s%02x", (j == 4 || j == 6 || j == 8 || j == 10) ? "-" : "", id[j]);
      fprintf (stderr, "\n");
      exit (4);
    }
  if (a->nseen == a->capseen)
    a->seen = realloc (a->seen, (a->capseen = a->capseen * 2 + 64) * sizeof *a->seen);
  memcpy (a->seen[a->nseen++], id, 16);
  const trajectory_msgs_msg_dds__JointTrajectory_ *tr = &req->data.goal.trajectory;
  event ("goal", id);
  printf (",\"joints\":[");
  for (uint32_t i = 0; i < tr->joint_names._length; i++)
  {
    printf ("%s", i ? "," : "");
    json_str (tr->joint_names._buffer[i]);
  }
  printf ("],\"points\":%u}\n", tr->points._length);
  bool accept = !a->o->reject_goals && a->ngoals < MAX_GOALS;
  cycwrap_control_msgs_action_dds__FollowJointTrajectory_SendGoal_Response_ rep = {
    .guid = req->guid, .seq = req->seq, .data = { .accepted = accept, .stamp = now_stamp () }
  };
  bool sent = reply (&a->send, a->o, reqwr, &rep);
  event (accept ? "accepted" : "rejected", id);
  printf (",\"replied\":%s}\n", sent ? "true" : "false");
  fflush (stdout);
  if (!accept)
    return;
  /* joint_trajectory_controller ends the goal it was running when a new
   * one comes: ABORTED on Jazzy and later, CANCELED on Humble. */
  for (int i = 0; i < a->ngoals; i++)
  {
    struct goal *old = &a->goals[i];
    if (!old->forgotten && !terminal (old->status))
    {
      event ("preempted", old->id);
      printf (",\"by\":");
      print_uuid (id);
      printf ("}\n");
      if (a->o->preempt_canceled)
        finish (a, old, ST_CANCELED, -1, "Current goal cancelled due to new incoming action.");
      else
        finish (a, old, ST_ABORTED, -1, "Current goal preempted by new incoming action.");
    }
  }
  struct goal *g = &a->goals[a->ngoals++];
  memset (g, 0, sizeof *g);
  memcpy (g->id, id, 16);
  g->stamp = rep.data.stamp;
  g->status = ST_ACCEPTED;
  g->joints._length = g->joints._maximum = tr->joint_names._length;
  g->joints._buffer = calloc (tr->joint_names._length + 1, sizeof (char *));
  for (uint32_t i = 0; i < tr->joint_names._length; i++)
    g->joints._buffer[i] = dds_string_dup (tr->joint_names._buffer[i]);
  publish_status (a);
  g->status = ST_EXECUTING;
  g->next = dds_time () + (dds_duration_t) (a->o->feedback_period * 1e9);
  publish_status (a);
}

/* on_cancel follows rcl_action's rules: a zero goal id and zero stamp
 * cancel every goal, a zero id and a stamp every goal accepted at or
 * before it, an id that goal (and, with a stamp, those before it). */
static void on_cancel (struct action *a, const cycwrap_action_msgs_srv_dds__CancelGoal_Request_ *req, dds_instance_handle_t reqwr)
{
  const unsigned char *id = req->data.goal_info.goal_id.uuid;
  builtin_interfaces_msg_dds__Time_ st = req->data.goal_info.stamp;
  bool all = zero_uuid (id), by_stamp = st.sec != 0 || st.nanosec != 0;
  action_msgs_msg_dds__GoalInfo_ *list = calloc ((size_t) a->ngoals + 1, sizeof *list);
  uint32_t n = 0;
  for (int i = 0; i < a->ngoals && !a->o->reject_cancels; i++)
  {
    struct goal *g = &a->goals[i];
    if (g->forgotten || terminal (g->status))
      continue;
    bool before = g->stamp.sec < st.sec || (g->stamp.sec == st.sec && g->stamp.nanosec <= st.nanosec);
    if ((all && !by_stamp) || memcmp (g->id, id, 16) == 0 || (by_stamp && before))
    {
      memcpy (list[n].goal_id.uuid, g->id, 16);
      list[n++].stamp = g->stamp;
    }
  }
  int8_t code = 0;
  if (n == 0)
  {
    struct goal *g = all ? NULL : find_goal (a, id);
    code = all || a->o->reject_cancels ? 1 : g == NULL ? 2 : terminal (g->status) ? 3 : 1;
  }
  cycwrap_action_msgs_srv_dds__CancelGoal_Response_ rep = {
    .guid = req->guid, .seq = req->seq,
    .data = { .return_code = code, .goals_canceling = { ._length = n, ._maximum = n, ._buffer = list } }
  };
  bool sent = reply (&a->cancel, a->o, reqwr, &rep);
  event ("cancel", id);
  printf (",\"return_code\":%d,\"canceling\":[", code);
  for (uint32_t i = 0; i < n; i++)
  {
    printf ("%s", i ? "," : "");
    print_uuid (list[i].goal_id.uuid);
  }
  printf ("],\"replied\":%s}\n", sent ? "true" : "false");
  fflush (stdout);
  for (uint32_t i = 0; i < n; i++)
    find_goal (a, list[i].goal_id.uuid)->status = ST_CANCELING;
  if (n > 0)
    publish_status (a);
  free (list);
}

static void on_get_result (struct action *a, const cycwrap_control_msgs_action_dds__FollowJointTrajectory_GetResult_Request_ *req, dds_instance_handle_t reqwr)
{
  const unsigned char *id = req->data.goal_id.uuid;
  struct goal *g = find_goal (a, id);
  if (g == NULL || terminal (g->status))
    answer_result (a, req->guid, req->seq, reqwr, id);
  else if (a->npend < MAX_GOALS)
  {
    /* rclcpp answers get_result of a live goal when it ends. */
    struct pending *p = &a->pend[a->npend++];
    memcpy (p->id, id, 16);
    p->guid = req->guid;
    p->seq = req->seq;
    p->reqwr = reqwr;
  }
}

/* step moves each live goal along the script and forgets results older
 * than --result-timeout, as rcl_action does. */
static void step (struct action *a)
{
  dds_time_t now = dds_time ();
  for (int i = 0; i < a->ngoals; i++)
  {
    struct goal *g = &a->goals[i];
    if (g->forgotten)
      continue;
    if (g->status == ST_CANCELING)
      finish (a, g, ST_CANCELED, 0, "Goal canceled");
    else if (g->status == ST_EXECUTING && now >= g->next)
    {
      g->next = now + (dds_duration_t) (a->o->feedback_period * 1e9);
      if (g->feedback_sent < a->o->feedback)
        send_feedback (a, g);
      else if (strcmp (a->o->outcome, "succeed") == 0)
        finish (a, g, ST_SUCCEEDED, 0, "");
      else if (strcmp (a->o->outcome, "abort") == 0)
        finish (a, g, ST_ABORTED, -4, "Aborted due to path tolerance violation");
    }
    else if (terminal (g->status) && now - g->ended >= (dds_duration_t) (a->o->result_timeout * 1e9))
    {
      g->forgotten = true;
      event ("forgotten", g->id);
      printf ("}\n");
      fflush (stdout);
      publish_status (a);
    }
  }
}

static const struct svc_types send_goal_types = SVC_TYPES (control_msgs_action_dds__FollowJointTrajectory_SendGoal);
static const struct svc_types get_result_types = SVC_TYPES (control_msgs_action_dds__FollowJointTrajectory_GetResult);
static const struct svc_types cancel_types = SVC_TYPES (action_msgs_srv_dds__CancelGoal);

/* action_services opens an action's three services (rcl's names:
 * <action>/_action/send_goal, cancel_goal, get_result) and returns the
 * action's name without its leading slash. */
static const char *action_services (dds_entity_t pp, const struct opts *o, struct svc *send, struct svc *cancel, struct svc *result, bool server)
{
  const char *base = o->action[0] == '/' ? o->action + 1 : o->action;
  char name[512];
  snprintf (name, sizeof name, "%s/_action/send_goal", base);
  svc_open (send, pp, name, send_goal_types, server);
  snprintf (name, sizeof name, "%s/_action/cancel_goal", base);
  svc_open (cancel, pp, name, cancel_types, server);
  snprintf (name, sizeof name, "%s/_action/get_result", base);
  svc_open (result, pp, name, get_result_types, server);
  return base;
}

/* take_request takes the next request of s into a fresh wrapper sample
 * (free with free_request); NULL when there is none. */
static void *take_request (const struct svc *s, dds_instance_handle_t *reqwr)
{
  void *req = calloc (1, s->ty.req_wrap->m_size);
  dds_sample_info_t si;
  if (take_frame (s->rd, s->ty.req_wrap, req, &si, s->req_what))
  {
    *reqwr = si.publication_handle;
    return req;
  }
  free (req);
  return NULL;
}

static void free_request (const struct svc *s, void *req)
{
  dds_stream_free_sample (req, s->ty.req_wrap->m_ops);
  free (req);
}

static int action_server (dds_entity_t pp, const struct opts *o)
{
  static struct action a;
  a.o = o;
  const char *base = action_services (pp, o, &a.send, &a.cancel, &a.result, true);
  char name[512];
  snprintf (name, sizeof name, "rt/%s/_action/feedback", base);
  dds_qos_t *q = qos_reliable (10, false, false);
  a.feedback = endpoint (pp, dds_create_topic (pp, &FJT (FeedbackMessage__desc), name, NULL, NULL), q, NULL, true);
  dds_delete_qos (q);
  snprintf (name, sizeof name, "rt/%s/_action/status", base);
  q = qos_reliable (1, true, false);
  a.status = endpoint (pp, dds_create_topic (pp, &action_msgs_msg_dds__GoalStatusArray__desc, name, NULL, NULL), q, NULL, true);
  dds_delete_qos (q);
  struct node_eps eps = { .nreaders = 0 };
  svc_eps (&a.send, &eps);
  svc_eps (&a.cancel, &eps);
  svc_eps (&a.result, &eps);
  eps.writers[eps.nwriters++] = a.feedback;
  eps.writers[eps.nwriters++] = a.status;
  announce_node (pp, o, &eps);
  fprintf (stderr, "cycnode: ready\n");
  while (!stopping)
  {
    dds_instance_handle_t wr;
    void *req;
    bool idle = true;
    if ((req = take_request (&a.send, &wr)) != NULL)
    {
      on_send_goal (&a, req, wr);
      free_request (&a.send, req);
      idle = false;
    }
    if ((req = take_request (&a.cancel, &wr)) != NULL)
    {
      on_cancel (&a, req, wr);
      free_request (&a.cancel, req);
      idle = false;
    }
    if ((req = take_request (&a.result, &wr)) != NULL)
    {
      on_get_result (&a, req, wr);
      free_request (&a.result, req);
      idle = false;
    }
    step (&a);
    if (idle)
      dds_sleepfor (DDS_MSECS (5));
  }
  return 0;
}

/* ---- FollowJointTrajectory client (to drive the server from a peer) ---- */

struct aclient {
  const struct opts *o;
  struct svc send, cancel, result;
  dds_entity_t feedback, status;
  unsigned char last[16]; /* the goal whose feedback --cancel-after counts */
  int last_feedback;
};

static struct aclient *polling;

static bool parse_uuid (const char *s, unsigned char *u)
{
  for (int i = 0; i < 16; i++)
  {
    if (*s == '-')
      s++;
    unsigned v;
    if (sscanf (s, "%2x", &v) != 1)
      return false;
    u[i] = (unsigned char) v;
    s += 2;
  }
  return *s == 0 || *s == ',';
}

/* poll_topics prints the feedback and status samples that came. */
static void poll_topics (void)
{
  struct aclient *c = polling;
  dds_sample_info_t si;
  FJT (FeedbackMessage_) fb;
  memset (&fb, 0, sizeof fb);
  while (take_frame (c->feedback, &FJT (FeedbackMessage__desc), &fb, &si, "feedback"))
  {
    if (memcmp (fb.goal_id.uuid, c->last, 16) == 0)
      c->last_feedback++;
    event ("feedback", fb.goal_id.uuid);
    printf (",\"joints\":[");
    for (uint32_t i = 0; i < fb.feedback.joint_names._length; i++)
    {
      printf ("%s", i ? "," : "");
      json_str (fb.feedback.joint_names._buffer[i]);
    }
    printf ("]}\n");
    fflush (stdout);
    dds_stream_free_sample (&fb, FJT (FeedbackMessage__desc).m_ops);
    memset (&fb, 0, sizeof fb);
  }
  action_msgs_msg_dds__GoalStatusArray_ st;
  memset (&st, 0, sizeof st);
  while (take_frame (c->status, &action_msgs_msg_dds__GoalStatusArray__desc, &st, &si, "status"))
  {
    printf ("{\"event\":\"status\",\"goals\":[");
    for (uint32_t i = 0; i < st.status_list._length; i++)
    {
      printf ("%s{\"goal_id\":", i ? "," : "");
      print_uuid (st.status_list._buffer[i].goal_info.goal_id.uuid);
      printf (",\"status\":%d}", st.status_list._buffer[i].status);
    }
    printf ("]}\n");
    fflush (stdout);
    dds_stream_free_sample (&st, action_msgs_msg_dds__GoalStatusArray__desc.m_ops);
    memset (&st, 0, sizeof st);
  }
}

static void poll_for (double s)
{
  dds_time_t end = dds_time () + (dds_duration_t) (s * 1e9);
  while (!stopping && dds_time () < end)
  {
    poll_topics ();
    dds_sleepfor (DDS_MSECS (5));
  }
}

static int action_client (dds_entity_t pp, const struct opts *o)
{
  static struct aclient c;
  c.o = o;
  polling = &c;
  call_idle = poll_topics;
  const char *base = action_services (pp, o, &c.send, &c.cancel, &c.result, false);
  char name[512];
  snprintf (name, sizeof name, "rt/%s/_action/feedback", base);
  dds_qos_t *q = qos_reliable (100, false, false);
  c.feedback = endpoint (pp, raw_topic (pp, name, FJT (FeedbackMessage__desc).m_typename), q, NULL, false);
  dds_delete_qos (q);
  snprintf (name, sizeof name, "rt/%s/_action/status", base);
  q = qos_reliable (1, true, false);
  c.status = endpoint (pp, raw_topic (pp, name, action_msgs_msg_dds__GoalStatusArray__desc.m_typename), q, NULL, false);
  dds_delete_qos (q);
  fprintf (stderr, "cycnode: ready\n");
  wait_matched (&c.send, o->timeout);
  wait_matched (&c.cancel, o->timeout);
  wait_matched (&c.result, o->timeout);

  unsigned char accepted[64][16];
  int naccepted = 0;
  /* joint names for the goal's trajectory, one point of zeros */
  char *joints = strdup (o->joints), *save = NULL;
  char *names[32];
  uint32_t njoints = 0;
  for (char *j = strtok_r (joints, ",", &save); j && njoints < 32; j = strtok_r (NULL, ",", &save))
    names[njoints++] = j;
  double zeros[32] = { 0 };
  for (const char *g = o->goals; g && *g && naccepted < 64;)
  {
    cycwrap_control_msgs_action_dds__FollowJointTrajectory_SendGoal_Request_ req;
    cycwrap_control_msgs_action_dds__FollowJointTrajectory_SendGoal_Response_ rep;
    memset (&req, 0, sizeof req);
    if (!parse_uuid (g, req.data.goal_id.uuid))
      die ("bad goal id in --goals: %s", g);
    trajectory_msgs_msg_dds__JointTrajectory_ *tr = &req.data.goal.trajectory;
    tr->header.frame_id = "";
    tr->joint_names = (dds_sequence_string) { ._length = njoints, ._maximum = njoints, ._buffer = names };
    /* --points of zeros, 0.1 s apart: a large goal crosses the wire in
     * fragments */
    uint32_t npts = o->points > 0 ? (uint32_t) o->points : 1;
    trajectory_msgs_msg_dds__JointTrajectoryPoint_ *pts = calloc (npts, sizeof *pts);
    for (uint32_t k = 0; k < npts; k++)
    {
      pts[k].positions = (dds_sequence_double) { ._length = njoints, ._maximum = njoints, ._buffer = zeros };
      pts[k].velocities = pts[k].positions;
      pts[k].time_from_start.sec = (int32_t) ((k + 1) / 10);
      pts[k].time_from_start.nanosec = (uint32_t) ((k + 1) % 10) * 100000000u;
    }
    tr->points = (dds_sequence_trajectory_msgs_msg_dds__JointTrajectoryPoint_) { ._length = npts, ._maximum = npts, ._buffer = pts };
    req.data.goal.multi_dof_trajectory.header.frame_id = "";
    call (&c.send, o, &req, &rep);
    free (pts);
    event ("sent", req.data.goal_id.uuid);
    printf (",\"accepted\":%s}\n", rep.data.accepted ? "true" : "false");
    fflush (stdout);
    if (rep.data.accepted)
    {
      memcpy (accepted[naccepted++], req.data.goal_id.uuid, 16);
      memcpy (c.last, req.data.goal_id.uuid, 16);
      c.last_feedback = 0;
    }
    g = strchr (g, ',');
    g = g ? g + 1 : NULL;
    if (g)
      poll_for (o->gap);
  }
  if (o->cancel)
  {
    dds_time_t end = dds_time () + (dds_duration_t) (o->timeout * 1e9);
    while (!stopping && c.last_feedback < o->cancel_after && dds_time () < end)
      poll_for (0.01);
    cycwrap_action_msgs_srv_dds__CancelGoal_Request_ req;
    cycwrap_action_msgs_srv_dds__CancelGoal_Response_ rep;
    memset (&req, 0, sizeof req);
    if (strcmp (o->cancel, "all") != 0 && !parse_uuid (o->cancel, req.data.goal_info.goal_id.uuid))
      die ("bad --cancel %s", o->cancel);
    call (&c.cancel, o, &req, &rep);
    printf ("{\"event\":\"cancel\",\"return_code\":%d,\"canceling\":[", rep.data.return_code);
    for (uint32_t i = 0; i < rep.data.goals_canceling._length; i++)
    {
      printf ("%s", i ? "," : "");
      print_uuid (rep.data.goals_canceling._buffer[i].goal_id.uuid);
    }
    printf ("]}\n");
    fflush (stdout);
    dds_stream_free_sample (&rep, cancel_types.rep_wrap->m_ops);
  }
  poll_for (o->result_delay);
  for (int i = 0; i < naccepted && !o->no_result; i++)
  {
    cycwrap_control_msgs_action_dds__FollowJointTrajectory_GetResult_Request_ req;
    cycwrap_control_msgs_action_dds__FollowJointTrajectory_GetResult_Response_ rep;
    memset (&req, 0, sizeof req);
    memcpy (req.data.goal_id.uuid, accepted[i], 16);
    call (&c.result, o, &req, &rep);
    event ("result", accepted[i]);
    printf (",\"status\":%d,\"error_code\":%d,\"error_string\":", rep.data.status, rep.data.result.error_code);
    json_str (rep.data.result.error_string ? rep.data.result.error_string : "");
    printf ("}\n");
    fflush (stdout);
    dds_stream_free_sample (&rep, get_result_types.rep_wrap->m_ops);
  }
  poll_for (0.2);
  free (joints);
  return 0;
}

/* ---- rcl_interfaces parameter services ---- */

#define RCL(x) rcl_interfaces_##x
#define MAX_PARAMS 64

enum { PT_NOT_SET = 0, PT_BOOL, PT_INTEGER, PT_DOUBLE, PT_STRING };

struct param {
  char *name;
  RCL (msg_dds__ParameterValue_) v;
  bool read_only;
};

static const char *type_names[] = { "not_set", "bool", "int", "double", "string" };

/* parse_value reads "type:value" (bool, int, double or string). */
static bool parse_value (const char *s, RCL (msg_dds__ParameterValue_) *v)
{
  memset (v, 0, sizeof *v);
  const char *colon = strchr (s, ':');
  if (colon == NULL)
    return false;
  size_t tl = (size_t) (colon - s);
  const char *val = colon + 1;
  char *end = NULL;
  for (uint8_t t = PT_BOOL; t <= PT_STRING; t++)
    if (strlen (type_names[t]) == tl && strncmp (s, type_names[t], tl) == 0)
      v->type = t;
  switch (v->type)
  {
    case PT_BOOL:
      v->bool_value = strcmp (val, "true") == 0;
      return v->bool_value || strcmp (val, "false") == 0;
    case PT_INTEGER:
      v->integer_value = strtoll (val, &end, 10);
      return *val && *end == 0;
    case PT_DOUBLE:
      v->double_value = strtod (val, &end);
      return *val && *end == 0;
    case PT_STRING:
      v->string_value = dds_string_dup (val);
      return true;
  }
  return false;
}

/* print_value prints {"type":T,"value":V}; arrays are printed by type only. */
static void print_value (const RCL (msg_dds__ParameterValue_) *v)
{
  printf ("{\"type\":%u,\"value\":", v->type);
  switch (v->type)
  {
    case PT_BOOL: printf ("%s", v->bool_value ? "true" : "false"); break;
    case PT_INTEGER: printf ("%" PRId64, v->integer_value); break;
    case PT_DOUBLE: printf ("%.17g", v->double_value); break;
    case PT_STRING: json_str (v->string_value ? v->string_value : ""); break;
    default: printf ("null");
  }
  printf ("}");
}

/* copy_value copies the scalar part of a value (the peers' table holds no
 * arrays), duplicating its string. */
static RCL (msg_dds__ParameterValue_) copy_value (const RCL (msg_dds__ParameterValue_) *v)
{
  RCL (msg_dds__ParameterValue_) c;
  memset (&c, 0, sizeof c);
  c.type = v->type;
  c.bool_value = v->bool_value;
  c.integer_value = v->integer_value;
  c.double_value = v->double_value;
  c.string_value = dds_string_dup (v->string_value ? v->string_value : "");
  return c;
}

static void print_strings (const dds_sequence_string *s)
{
  printf ("[");
  for (uint32_t i = 0; i < s->_length; i++)
  {
    printf ("%s", i ? "," : "");
    json_str (s->_buffer[i]);
  }
  printf ("]");
}

static void push_string (dds_sequence_string *s, const char *v)
{
  for (uint32_t i = 0; i < s->_length; i++)
    if (strcmp (s->_buffer[i], v) == 0)
      return;
  s->_buffer = realloc (s->_buffer, (s->_length + 1) * sizeof *s->_buffer);
  s->_buffer[s->_length++] = dds_string_dup (v);
  s->_maximum = s->_length;
  s->_release = true;
}

struct params {
  struct param p[MAX_PARAMS];
  int n;
  struct svc list, get, set, describe;
  dds_entity_t events; /* rt/parameter_events */
  char fqn[300];
};

/* publish_event writes a ParameterEvent for the node, as rclcpp does on
 * each declare (new) and each successful set (changed). */
static void publish_event (struct params *ps, const char *name, const RCL (msg_dds__ParameterValue_) *v, bool is_new)
{
  RCL (msg_dds__Parameter_) p = { .name = (char *) name, .value = *v };
  RCL (msg_dds__ParameterEvent_) e;
  memset (&e, 0, sizeof e);
  e.stamp = now_stamp ();
  e.node = ps->fqn;
  dds_sequence_rcl_interfaces_msg_dds__Parameter_ one = { ._length = 1, ._maximum = 1, ._buffer = &p };
  if (is_new)
    e.new_parameters = one;
  else
    e.changed_parameters = one;
  check (dds_write (ps->events, &e), "write parameter event");
}

static struct param *find_param (struct params *ps, const char *name)
{
  for (int i = 0; i < ps->n; i++)
    if (strcmp (ps->p[i].name, name) == 0)
      return &ps->p[i];
  return NULL;
}

static bool all_declared (struct params *ps, const dds_sequence_string *names)
{
  for (uint32_t i = 0; i < names->_length; i++)
    if (find_param (ps, names->_buffer[i]) == NULL)
      return false;
  return true;
}

static int dots (const char *s)
{
  int n = 0;
  for (; *s; s++)
    n += *s == '.';
  return n;
}

/* on_list follows rclcpp's list_parameters: names under a prefix (all
 * with none), at most depth levels below it (0: any), and the prefixes of
 * the names listed. */
static void on_list (struct params *ps, const RCL (srv_dds__ListParameters_Request_) *req, RCL (srv_dds__ListParameters_Response_) *rep)
{
  dds_sequence_string *names = &rep->result.names, *prefixes = &rep->result.prefixes;
  for (int i = 0; i < ps->n; i++)
  {
    const char *name = ps->p[i].name;
    bool add = false;
    if (req->prefixes._length == 0)
      add = req->depth == 0 || (uint64_t) dots (name) < req->depth;
    for (uint32_t j = 0; j < req->prefixes._length && !add; j++)
    {
      const char *pre = req->prefixes._buffer[j];
      size_t pl = strlen (pre);
      if (strcmp (name, pre) == 0)
        add = true;
      else if (strncmp (name, pre, pl) == 0 && name[pl] == '.')
        add = req->depth == 0 || (uint64_t) dots (name + pl + 1) < req->depth;
    }
    if (!add)
      continue;
    push_string (names, name);
    const char *last = strrchr (name, '.');
    if (last)
    {
      char *pre = dds_string_dup (name);
      pre[last - name] = 0;
      push_string (prefixes, pre);
      dds_free (pre);
    }
  }
  printf ("{\"event\":\"list\",\"prefixes\":");
  print_strings (&req->prefixes);
  printf (",\"depth\":%" PRIu64 ",\"names\":", req->depth);
  print_strings (names);
  printf ("}\n");
}

/* on_get answers the values, or nothing when a name is not declared (as
 * rclcpp, which catches ParameterNotDeclaredException). */
static void on_get (struct params *ps, const RCL (srv_dds__GetParameters_Request_) *req, RCL (srv_dds__GetParameters_Response_) *rep)
{
  uint32_t n = req->names._length;
  bool all = all_declared (ps, &req->names);
  printf ("{\"event\":\"get\",\"names\":");
  print_strings (&req->names);
  printf (",\"values\":[");
  if (all && n > 0)
  {
    rep->values._buffer = calloc (n, sizeof *rep->values._buffer);
    rep->values._length = rep->values._maximum = n;
    rep->values._release = true;
    for (uint32_t i = 0; i < n; i++)
    {
      rep->values._buffer[i] = copy_value (&find_param (ps, req->names._buffer[i])->v);
      printf ("%s", i ? "," : "");
      print_value (&rep->values._buffer[i]);
    }
  }
  printf ("]}\n");
}

/* on_set sets each parameter as rclcpp does for declared ones: its type
 * may not change (no dynamic typing) and a read-only one stays. */
static void on_set (struct params *ps, const RCL (srv_dds__SetParameters_Request_) *req, RCL (srv_dds__SetParameters_Response_) *rep)
{
  uint32_t n = req->parameters._length;
  rep->results._buffer = calloc (n + 1, sizeof *rep->results._buffer);
  rep->results._length = rep->results._maximum = n;
  rep->results._release = true;
  for (uint32_t i = 0; i < n; i++)
  {
    const RCL (msg_dds__Parameter_) *np = &req->parameters._buffer[i];
    struct param *p = find_param (ps, np->name);
    char why[512] = "";
    if (p == NULL)
      snprintf (why, sizeof why, "parameter '%s' cannot be set because it was not declared", np->name);
    else if (p->read_only)
      snprintf (why, sizeof why, "parameter '%s' cannot be set because it is read-only", np->name);
    else if (np->value.type != p->v.type)
      snprintf (why, sizeof why, "Wrong parameter type, parameter {%s} is of type {%s}, setting it to {%s} is not allowed.", np->name,
                p->v.type <= PT_STRING ? type_names[p->v.type] : "array", np->value.type <= PT_STRING ? type_names[np->value.type] : "array");
    else
    {
      dds_free (p->v.string_value);
      p->v = copy_value (&np->value);
      publish_event (ps, p->name, &p->v, false);
    }
    rep->results._buffer[i].successful = why[0] == 0;
    rep->results._buffer[i].reason = dds_string_dup (why);
    printf ("{\"event\":\"set\",\"name\":");
    json_str (np->name);
    printf (",\"value\":");
    print_value (&np->value);
    printf (",\"successful\":%s,\"reason\":", why[0] ? "false" : "true");
    json_str (why);
    printf ("}\n");
  }
}

static void on_describe (struct params *ps, const RCL (srv_dds__DescribeParameters_Request_) *req, RCL (srv_dds__DescribeParameters_Response_) *rep)
{
  uint32_t n = req->names._length;
  bool all = all_declared (ps, &req->names);
  if (all && n > 0)
  {
    rep->descriptors._buffer = calloc (n, sizeof *rep->descriptors._buffer);
    rep->descriptors._length = rep->descriptors._maximum = n;
    rep->descriptors._release = true;
    for (uint32_t i = 0; i < n; i++)
    {
      struct param *p = find_param (ps, req->names._buffer[i]);
      RCL (msg_dds__ParameterDescriptor_) *d = &rep->descriptors._buffer[i];
      d->name = dds_string_dup (p->name);
      d->type = p->v.type;
      d->description = dds_string_dup ("");
      d->additional_constraints = dds_string_dup ("");
      d->read_only = p->read_only;
    }
  }
  printf ("{\"event\":\"describe\",\"names\":");
  print_strings (&req->names);
  printf (",\"described\":%u}\n", all ? n : 0);
}

static const struct svc_types list_types = SVC_TYPES (rcl_interfaces_srv_dds__ListParameters);
static const struct svc_types get_types = SVC_TYPES (rcl_interfaces_srv_dds__GetParameters);
static const struct svc_types set_types = SVC_TYPES (rcl_interfaces_srv_dds__SetParameters);
static const struct svc_types describe_types = SVC_TYPES (rcl_interfaces_srv_dds__DescribeParameters);

/* param_services opens a node's parameter services (rclcpp's names:
 * <node>/list_parameters, get_parameters, set_parameters,
 * describe_parameters). */
static void param_services (dds_entity_t pp, const struct opts *o, struct params *ps, bool server)
{
  char *fqn = ps->fqn, name[400];
  snprintf (ps->fqn, sizeof ps->fqn, "%s%s%s", o->ns, strcmp (o->ns, "/") == 0 ? "" : "/", o->node);
  snprintf (name, sizeof name, "%s/list_parameters", fqn);
  svc_open (&ps->list, pp, name, list_types, server);
  snprintf (name, sizeof name, "%s/get_parameters", fqn);
  svc_open (&ps->get, pp, name, get_types, server);
  snprintf (name, sizeof name, "%s/set_parameters", fqn);
  svc_open (&ps->set, pp, name, set_types, server);
  snprintf (name, sizeof name, "%s/describe_parameters", fqn);
  svc_open (&ps->describe, pp, name, describe_types, server);
}

/* handle_one takes a request of s, if any, fills its reply with h and
 * sends it; it returns whether there was one. */
static bool handle_one (const struct opts *o, struct params *ps, const struct svc *s, void (*h) (struct params *, const void *, void *))
{
  dds_instance_handle_t wr;
  void *req = take_request (s, &wr);
  if (req == NULL)
    return false;
  void *rep = calloc (1, s->ty.rep_wrap->m_size);
  memcpy (rep, req, 2 * sizeof (uint64_t));
  h (ps, (char *) req + 2 * sizeof (uint64_t), (char *) rep + 2 * sizeof (uint64_t));
  fflush (stdout);
  reply (s, o, wr, rep);
  dds_stream_free_sample (rep, s->ty.rep_wrap->m_ops);
  free (rep);
  free_request (s, req);
  return true;
}

static int param_server (dds_entity_t pp, const struct opts *o)
{
  static struct params ps;
  for (int i = 0; i < o->nparams && ps.n < MAX_PARAMS; i++)
  {
    const char *eq = strchr (o->params[i], '=');
    if (eq == NULL)
      die ("--param %s is not name=type:value", o->params[i]);
    struct param *p = &ps.p[ps.n++];
    p->name = dds_string_dup (o->params[i]);
    p->name[eq - o->params[i]] = 0;
    if (!parse_value (eq + 1, &p->v))
      die ("--param %s: bad type:value (bool, int, double or string)", o->params[i]);
  }
  for (int i = 0; i < o->nreadonly; i++)
  {
    struct param *p = find_param (&ps, o->readonly[i]);
    if (p == NULL)
      die ("--read-only %s names no --param", o->readonly[i]);
    p->read_only = true;
  }
  param_services (pp, o, &ps, true);
  /* /parameter_events: reliable, volatile, keep last 1000 (rmw's
   * parameter_events profile) */
  dds_qos_t *q = qos_reliable (1000, false, false);
  ps.events = endpoint (pp, dds_create_topic (pp, &RCL (msg_dds__ParameterEvent__desc), "rt/parameter_events", NULL, NULL), q, NULL, true);
  dds_delete_qos (q);
  struct node_eps eps = { .nreaders = 0 };
  svc_eps (&ps.list, &eps);
  svc_eps (&ps.get, &eps);
  svc_eps (&ps.set, &eps);
  svc_eps (&ps.describe, &eps);
  eps.writers[eps.nwriters++] = ps.events;
  announce_node (pp, o, &eps);
  for (int i = 0; i < ps.n; i++)
    publish_event (&ps, ps.p[i].name, &ps.p[i].v, true);
  fprintf (stderr, "cycnode: ready\n");
  while (!stopping)
  {
    bool any = handle_one (o, &ps, &ps.list, (void (*) (struct params *, const void *, void *)) on_list);
    any |= handle_one (o, &ps, &ps.get, (void (*) (struct params *, const void *, void *)) on_get);
    any |= handle_one (o, &ps, &ps.set, (void (*) (struct params *, const void *, void *)) on_set);
    any |= handle_one (o, &ps, &ps.describe, (void (*) (struct params *, const void *, void *)) on_describe);
    if (!any)
      dds_sleepfor (DDS_MSECS (5));
  }
  return 0;
}

/* param_client makes each --call in order and prints each reply:
 * list[:prefix,…], get:a,b, set:name=type:value, describe:a,b. */
static void print_names (const dds_sequence_rcl_interfaces_msg_dds__Parameter_ *ps)
{
  printf ("[");
  for (uint32_t i = 0; i < ps->_length; i++)
  {
    printf ("%s", i ? "," : "");
    json_str (ps->_buffer[i].name);
  }
  printf ("]");
}

/* take_events prints the parameter events that came: the node's and its
 * new and changed parameters' names. */
static int take_events (dds_entity_t rd)
{
  int n = 0;
  RCL (msg_dds__ParameterEvent_) e;
  memset (&e, 0, sizeof e);
  dds_sample_info_t si;
  while (take_frame (rd, &RCL (msg_dds__ParameterEvent__desc), &e, &si, "parameter event"))
  {
    printf ("{\"call\":\"event\",\"node\":");
    json_str (e.node);
    printf (",\"new\":");
    print_names (&e.new_parameters);
    printf (",\"changed\":");
    print_names (&e.changed_parameters);
    printf ("}\n");
    fflush (stdout);
    dds_stream_free_sample (&e, RCL (msg_dds__ParameterEvent__desc).m_ops);
    memset (&e, 0, sizeof e);
    n++;
  }
  return n;
}

static int param_client (dds_entity_t pp, const struct opts *o)
{
  static struct params ps;
  param_services (pp, o, &ps, false);
  dds_qos_t *q = qos_reliable (1000, false, false);
  dds_entity_t events = endpoint (pp, raw_topic (pp, "rt/parameter_events", RCL (msg_dds__ParameterEvent__desc).m_typename), q, NULL, false);
  dds_delete_qos (q);
  fprintf (stderr, "cycnode: ready\n");
  wait_matched (&ps.list, o->timeout);
  wait_matched (&ps.get, o->timeout);
  wait_matched (&ps.set, o->timeout);
  wait_matched (&ps.describe, o->timeout);
  for (int i = 0; i < o->ncalls; i++)
  {
    const char *c = o->calls[i], *arg = strchr (c, ':');
    arg = arg ? arg + 1 : "";
    dds_sequence_string names = { 0 };
    char *list = dds_string_dup (arg), *save = NULL;
    for (char *t = strtok_r (list, ",", &save); t; t = strtok_r (NULL, ",", &save))
      push_string (&names, t);
    if (strncmp (c, "list", 4) == 0)
    {
      cycwrap_rcl_interfaces_srv_dds__ListParameters_Request_ req = { .data = { .prefixes = names } };
      cycwrap_rcl_interfaces_srv_dds__ListParameters_Response_ rep;
      call (&ps.list, o, &req, &rep);
      printf ("{\"call\":\"list\",\"names\":");
      print_strings (&rep.data.result.names);
      printf (",\"prefixes\":");
      print_strings (&rep.data.result.prefixes);
      printf ("}\n");
      dds_stream_free_sample (&rep, list_types.rep_wrap->m_ops);
    }
    else if (strncmp (c, "get:", 4) == 0)
    {
      cycwrap_rcl_interfaces_srv_dds__GetParameters_Request_ req = { .data = { .names = names } };
      cycwrap_rcl_interfaces_srv_dds__GetParameters_Response_ rep;
      call (&ps.get, o, &req, &rep);
      printf ("{\"call\":\"get\",\"values\":[");
      for (uint32_t j = 0; j < rep.data.values._length; j++)
      {
        printf ("%s", j ? "," : "");
        print_value (&rep.data.values._buffer[j]);
      }
      printf ("]}\n");
      dds_stream_free_sample (&rep, get_types.rep_wrap->m_ops);
    }
    else if (strncmp (c, "set:", 4) == 0)
    {
      RCL (msg_dds__Parameter_) p;
      memset (&p, 0, sizeof p);
      const char *eq = strchr (arg, '=');
      if (eq == NULL)
        die ("--call %s is not set:name=type:value", c);
      p.name = dds_string_dup (arg);
      p.name[eq - arg] = 0;
      if (!parse_value (eq + 1, &p.value))
        die ("--call %s: bad type:value", c);
      cycwrap_rcl_interfaces_srv_dds__SetParameters_Request_ req = { .data = { .parameters = { ._length = 1, ._maximum = 1, ._buffer = &p } } };
      cycwrap_rcl_interfaces_srv_dds__SetParameters_Response_ rep;
      call (&ps.set, o, &req, &rep);
      printf ("{\"call\":\"set\",\"results\":[");
      for (uint32_t j = 0; j < rep.data.results._length; j++)
      {
        printf ("%s{\"successful\":%s,\"reason\":", j ? "," : "", rep.data.results._buffer[j].successful ? "true" : "false");
        json_str (rep.data.results._buffer[j].reason ? rep.data.results._buffer[j].reason : "");
        printf ("}");
      }
      printf ("]}\n");
      dds_stream_free_sample (&rep, set_types.rep_wrap->m_ops);
    }
    else if (strncmp (c, "describe:", 9) == 0)
    {
      cycwrap_rcl_interfaces_srv_dds__DescribeParameters_Request_ req = { .data = { .names = names } };
      cycwrap_rcl_interfaces_srv_dds__DescribeParameters_Response_ rep;
      call (&ps.describe, o, &req, &rep);
      printf ("{\"call\":\"describe\",\"descriptors\":[");
      for (uint32_t j = 0; j < rep.data.descriptors._length; j++)
      {
        const RCL (msg_dds__ParameterDescriptor_) *d = &rep.data.descriptors._buffer[j];
        printf ("%s{\"name\":", j ? "," : "");
        json_str (d->name ? d->name : "");
        printf (",\"type\":%u,\"read_only\":%s}", d->type, d->read_only ? "true" : "false");
      }
      printf ("]}\n");
      dds_stream_free_sample (&rep, describe_types.rep_wrap->m_ops);
    }
    else
      die ("--call %s: list, get, set or describe", c);
    fflush (stdout);
    dds_free (list);
  }
  /* --events N: wait for N parameter events (all that came are printed) */
  dds_time_t end = dds_time () + (dds_duration_t) (o->timeout * 1e9);
  for (int got = 0; got < o->events && !stopping;)
  {
    got += take_events (events);
    if (dds_time () > end)
      die ("%d parameter events of %d in %g s", got, o->events, o->timeout);
    dds_sleepfor (DDS_MSECS (5));
  }
  return 0;
}

/* ---- what discovery says of every endpoint ---- */

/* print_endpoint prints one endpoint; one that is gone is only its key. */
static void print_endpoint (const char *kind, const dds_builtintopic_endpoint_t *ep, bool gone)
{
  printf ("{\"kind\":\"%s\",\"guid\":", kind);
  json_hex (ep->key.v, 16);
  if (gone)
  {
    printf (",\"gone\":true}\n");
    fflush (stdout);
    return;
  }
  printf (",\"participant\":");
  json_hex (ep->participant_key.v, 16);
  printf (",\"topic\":");
  json_str (ep->topic_name);
  printf (",\"type\":");
  json_str (ep->type_name);
  void *ud = NULL;
  size_t sz = 0;
  char *s = NULL;
  if (dds_qget_userdata (ep->qos, &ud, &sz) && ud)
  {
    s = calloc (1, sz + 1);
    memcpy (s, ud, sz);
    dds_free (ud);
  }
  printf (",\"user_data\":");
  json_str (s ? s : "");
  printf ("}\n");
  fflush (stdout);
  free (s);
}

/* endpoints prints each reader and writer discovery reports (DCPS
 * built-in topics), with its user data, until stopped or --count. */
static int endpoints (dds_entity_t pp, const struct opts *o)
{
  dds_entity_t pubs = dds_create_reader (pp, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
  dds_entity_t subs = dds_create_reader (pp, DDS_BUILTIN_TOPIC_DCPSSUBSCRIPTION, NULL, NULL);
  check (pubs, "create DCPSPublication reader");
  check (subs, "create DCPSSubscription reader");
  dds_guid_t self;
  check (dds_get_guid (pp, &self), "participant guid");
  fprintf (stderr, "cycnode: ready\n");
  int got = 0;
  while (!stopping && (o->count == 0 || got < o->count))
  {
    bool any = false;
    for (int k = 0; k < 2; k++)
    {
      void *buf[1] = { NULL };
      dds_sample_info_t si;
      dds_entity_t rd = k ? subs : pubs;
      while (dds_take (rd, buf, &si, 1, 1) > 0)
      {
        const dds_builtintopic_endpoint_t *ep = buf[0];
        /* A reader or writer that goes (deleted, or its participant's
         * lease ended) comes as an invalid sample holding its key. */
        bool gone = !si.valid_data && si.instance_state != DDS_ALIVE_INSTANCE_STATE;
        if ((gone || si.valid_data) && memcmp (ep->key.v, self.v, 12) != 0)
        {
          print_endpoint (k ? "reader" : "writer", buf[0], gone);
          got++;
          any = true;
        }
        dds_return_loan (rd, buf, 1);
        buf[0] = NULL;
      }
    }
    if (!any)
      dds_sleepfor (DDS_MSECS (10));
  }
  return 0;
}

int main (int argc, char **argv)
{
  if (argc < 2)
    die ("usage: cycnode trigger-server|trigger-client|announce|graph|action-server|action-client|param-server|param-client|endpoints [options] (see README.md)");
  const char *mode = argv[1];
  struct opts o = parse_opts (argc, argv);
  with_typehash = o.typehash;
  struct sigaction sa = { .sa_handler = on_signal };
  sigemptyset (&sa.sa_mask);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  bool needs_service = strcmp (mode, "trigger-server") == 0 || strcmp (mode, "trigger-client") == 0;
  if (needs_service && o.service == NULL)
    die ("%s needs --service", mode);
  if (strncmp (mode, "action-", 7) == 0 && o.action == NULL)
    die ("%s needs --action", mode);
  if (strncmp (mode, "param-", 6) == 0 && o.node == NULL)
    die ("%s needs --node", mode);
  dds_entity_t pp = make_participant (&o);
  int rc;
  if (strcmp (mode, "trigger-server") == 0)
    rc = trigger_server (pp, &o);
  else if (strcmp (mode, "trigger-client") == 0)
    rc = trigger_client (pp, &o);
  else if (strcmp (mode, "announce") == 0)
    rc = announce_mode (pp, &o);
  else if (strcmp (mode, "graph") == 0)
    rc = graph (pp, &o);
  else if (strcmp (mode, "action-server") == 0)
    rc = action_server (pp, &o);
  else if (strcmp (mode, "action-client") == 0)
    rc = action_client (pp, &o);
  else if (strcmp (mode, "endpoints") == 0)
    rc = endpoints (pp, &o);
  else if (strcmp (mode, "param-server") == 0)
    rc = param_server (pp, &o);
  else if (strcmp (mode, "param-client") == 0)
    rc = param_client (pp, &o);
  else
    die ("unknown mode %s", mode);
  dds_delete (pp);
  return rc;
}
