/* cycpeer: a CycloneDDS test peer for actbridge's CDR and RTPS tests.
 * Built by the Go package test/ddspeers with peertypes.h/.c (idlc's
 * output for the peer types) and cycpeer_types.inc (generated readers).
 * Usage: see README.md. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dds/dds.h"
#include "dds/ddsi/ddsi_cdrstream.h"
#include "dds/ddsrt/atomics.h"

#include "peertypes.h" /* idlc output */

#define XCDR1 1 /* CDR_ENC_VERSION_1 of dds/ddsi/q_protocol.h */

struct peer_type {
  const char *name;     /* pkg/msg/Type */
  const char *dds_name; /* pkg::msg::dds_::Type_ */
  const dds_topic_descriptor_t *desc;
  size_t size;
  void (*read) (void *sample);
};

static void die (const char *fmt, const char *arg)
{
  fprintf (stderr, "cycpeer: ");
  fprintf (stderr, fmt, arg);
  fprintf (stderr, "\n");
  exit (2);
}

/* Tokens of the current sample, read from one stdin line: tok_begin
 * starts on a line, tok returns its next token. */
static char *tok_save, *tok_line;

static void tok_begin (char *line)
{
  tok_line = line;
}

static char *tok_next (void)
{
  char *t = strtok_r (tok_line, " \n", &tok_save);
  tok_line = NULL;
  return t;
}

static char *tok (void)
{
  char *t = tok_next ();
  if (t == NULL)
    die ("%s", "sample ends early");
  return t;
}

static uint64_t rd_u (void)
{
  char *t = tok (), *end;
  errno = 0;
  uint64_t v = strtoull (t, &end, 10);
  if (*end || errno)
    die ("bad unsigned %s", t);
  return v;
}

static int64_t rd_i (void)
{
  char *t = tok (), *end;
  errno = 0;
  int64_t v = strtoll (t, &end, 10);
  if (*end || errno)
    die ("bad integer %s", t);
  return v;
}

static double rd_f (void)
{
  char *t = tok (), *end;
  double v = strtod (t, &end);
  if (*end)
    die ("bad float %s", t);
  return v;
}

/* rd_len reads an array or sequence length: want > 0 is an array's exact
 * length, want < 0 a sequence's bound, 0 an unbounded sequence. */
static uint32_t rd_len (int want, const char *field)
{
  uint64_t n = rd_u ();
  if ((want > 0 && n != (uint64_t) want) || (want < 0 && n > (uint64_t) -want) || n > UINT32_MAX)
    die ("bad length for %s", field);
  return (uint32_t) n;
}

static int unhex (char c)
{
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  die ("bad hex digit %s", (char[]) { c, 0 });
  return 0;
}

/* rd_str reads "x<hex>" into a new NUL-terminated string. */
static char *rd_str (void)
{
  char *t = tok ();
  size_t n = strlen (t);
  if (t[0] != 'x' || n % 2 != 1)
    die ("bad string %s", t);
  char *s = malloc (n / 2 + 1);
  for (size_t i = 0; i < n / 2; i++)
    s[i] = (char) (unhex (t[1 + 2 * i]) << 4 | unhex (t[2 + 2 * i]));
  s[n / 2] = 0;
  return s;
}

static void rd_bstr (char *dst, size_t size)
{
  char *s = rd_str ();
  if (strlen (s) >= size)
    die ("string %s longer than its bound", s);
  strcpy (dst, s);
  free (s);
}

#include "cycpeer_types.inc"

static const struct peer_type *find_type (const char *name)
{
  for (const struct peer_type *t = peer_types; t->name; t++)
    if (strcmp (t->name, name) == 0 || strcmp (t->dds_name, name) == 0)
      return t;
  die ("unknown type %s", name);
  return NULL;
}

/* read_sample reads the rest of the current line as a sample of t. */
static void *read_sample (const struct peer_type *t)
{
  void *sample = calloc (1, t->size);
  t->read (sample);
  if (tok_next () != NULL)
    die ("%s", "tokens left after the sample");
  return sample;
}

/* print_ser prints the hex of sample serialized by Cyclone's CDR stream
 * writer (what its serdata uses), encapsulation header first. */
static void print_ser (const struct peer_type *t, const void *sample, bool be)
{
  dds_ostream_t os;
  dds_ostream_init (&os, 0, XCDR1);
  if (be)
    dds_stream_writeBE ((dds_ostreamBE_t *) &os, sample, t->desc->m_ops);
  else
    dds_stream_writeLE ((dds_ostreamLE_t *) &os, sample, t->desc->m_ops);
  printf ("00%s0000", be ? "00" : "01");
  for (uint32_t i = 0; i < os.m_index; i++)
    printf ("%02x", os.m_buffer[i]);
  printf ("\n");
  fflush (stdout);
  dds_ostream_fini (&os);
}

static void free_sample (const struct peer_type *t, void *sample)
{
  dds_stream_free_sample (sample, t->desc->m_ops);
  free (sample);
}

/* dump: each stdin line "TYPE LE|BE SAMPLE" becomes one stdout line, the
 * hex of the sample as Cyclone serializes it. */
static int dump (void)
{
  char *line = NULL;
  size_t cap = 0;
  while (getline (&line, &cap, stdin) > 0)
  {
    tok_begin (line);
    char *name = tok_next ();
    if (name == NULL)
      continue;
    const struct peer_type *t = find_type (name);
    bool be = strcmp (tok (), "BE") == 0;
    void *sample = read_sample (t);
    print_ser (t, sample, be);
    free_sample (t, sample);
  }
  free (line);
  return 0;
}

/* SIGTERM and SIGINT end pub, sub and echo cleanly: the participant is
 * deleted, so peers drop it at once instead of waiting out its lease. */
static volatile sig_atomic_t stopping;

static void on_signal (int sig)
{
  (void) sig;
  stopping = 1;
}

/* nap sleeps for s seconds or until a stop signal. */
static void nap (double s)
{
  dds_time_t end = dds_time () + (dds_duration_t) (s * 1e9);
  while (!stopping && dds_time () < end)
    dds_sleepfor (DDS_MSECS (10));
}

/* Options of pub, sub and echo; see README.md. */
struct opts {
  const char *type, *topic, *out_topic;
  bool best_effort, transient_local, keep_all, raw, listener;
  int depth, count, wait_match;
  uint32_t domain;
  double rate, timeout, linger;
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

static struct opts parse_opts (int argc, char **argv)
{
  struct opts o = { .depth = 10, .wait_match = 1, .timeout = 30, .linger = 1 };
  for (int i = 2; i < argc; i++)
  {
    const char *a = argv[i];
    if (strcmp (a, "--best-effort") == 0) o.best_effort = true;
    else if (strcmp (a, "--transient-local") == 0) o.transient_local = true;
    else if (strcmp (a, "--keep-all") == 0) o.keep_all = true;
    else if (strcmp (a, "--raw") == 0) o.raw = true;
    else if (strcmp (a, "--listener") == 0) o.listener = true;
    else if (strcmp (a, "--type") == 0 && i + 1 < argc) o.type = argv[++i];
    else if (strcmp (a, "--topic") == 0 && i + 1 < argc) o.topic = argv[++i];
    else if (strcmp (a, "--out-topic") == 0 && i + 1 < argc) o.out_topic = argv[++i];
    else if (strcmp (a, "--depth") == 0) o.depth = (int) num_arg (argc, argv, &i);
    else if (strcmp (a, "--count") == 0) o.count = (int) num_arg (argc, argv, &i);
    else if (strcmp (a, "--wait-match") == 0) o.wait_match = (int) num_arg (argc, argv, &i);
    else if (strcmp (a, "--domain") == 0) o.domain = (uint32_t) num_arg (argc, argv, &i);
    else if (strcmp (a, "--rate") == 0) o.rate = num_arg (argc, argv, &i);
    else if (strcmp (a, "--timeout") == 0) o.timeout = num_arg (argc, argv, &i);
    else if (strcmp (a, "--linger") == 0) o.linger = num_arg (argc, argv, &i);
    else die ("unknown option %s", a);
  }
  if (o.type == NULL || o.topic == NULL)
    die ("%s", "--type and --topic are required");
  if (o.depth < 1)
    die ("%s", "--depth must be at least 1");
  return o;
}

static dds_qos_t *make_qos (const struct opts *o)
{
  dds_qos_t *q = dds_create_qos ();
  dds_qset_reliability (q, o->best_effort ? DDS_RELIABILITY_BEST_EFFORT : DDS_RELIABILITY_RELIABLE, DDS_SECS (10));
  dds_qset_durability (q, o->transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
  dds_qset_history (q, o->keep_all ? DDS_HISTORY_KEEP_ALL : DDS_HISTORY_KEEP_LAST, o->depth);
  /* Cyclone keeps what a late joiner gets by the durability service's
   * history (default: the last 1), so it follows the history, as
   * rmw_cyclonedds sets it. */
  dds_qset_durability_service (q, 0, o->keep_all ? DDS_HISTORY_KEEP_ALL : DDS_HISTORY_KEEP_LAST, o->depth,
                               DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
  return q;
}

static void check (dds_return_t rc, const char *what)
{
  if (rc < 0)
    die (what, dds_strretcode (rc));
}

/* wait_matched waits until the writer has matched n readers. */
static void wait_matched (dds_entity_t wr, int n, double timeout)
{
  dds_time_t end = dds_time () + (dds_duration_t) (timeout * 1e9);
  dds_publication_matched_status_t st;
  while (!stopping)
  {
    check (dds_get_publication_matched_status (wr, &st), "matched status: %s");
    if ((int) st.current_count >= n)
      break;
    if (dds_time () > end)
      die ("%s", "timed out waiting for readers");
    dds_sleepfor (DDS_MSECS (10));
  }
  fprintf (stderr, "cycpeer: matched %d\n", (int) st.current_count);
}

/* pub: publishes each stdin line (a sample) once, or cycles through them
 * until --count samples are out, at --rate per second (0: at once). */
static int pub (const struct opts *o, const struct peer_type *t, dds_entity_t pp)
{
  dds_entity_t tp = dds_create_topic (pp, t->desc, o->topic, NULL, NULL);
  check (tp, "create topic: %s");
  dds_qos_t *q = make_qos (o);
  dds_entity_t wr = dds_create_writer (pp, tp, q, NULL);
  check (wr, "create writer: %s");
  dds_delete_qos (q);
  size_t n = 0, cap = 0;
  void **samples = NULL;
  char *line = NULL;
  size_t lcap = 0;
  while (!stopping && getline (&line, &lcap, stdin) > 0)
  {
    tok_begin (line);
    if (n == cap)
      samples = realloc (samples, (cap = cap * 2 + 8) * sizeof *samples);
    samples[n++] = read_sample (t);
  }
  free (line);
  if (stopping)
    return 0;
  if (n == 0)
    die ("%s", "no samples on stdin");
  if (o->wait_match > 0)
    wait_matched (wr, o->wait_match, o->timeout);
  int total = o->count > 0 ? o->count : (int) n;
  int i;
  for (i = 0; i < total && !stopping; i++)
  {
    check (dds_write (wr, samples[(size_t) i % n]), "write: %s");
    if (o->rate > 0)
      nap (1 / o->rate);
  }
  fprintf (stderr, "cycpeer: published %d\n", i);
  nap (o->linger);
  for (size_t i = 0; i < n; i++)
    free_sample (t, samples[i]);
  free (samples);
  return 0;
}

/* take_raw takes one sample and prints the serialized payload as it came
 * off the wire, header, options and padding included. It returns 1 for a
 * sample with data, 0 for none, < 0 for an error. */
static dds_return_t take_raw (dds_entity_t rd)
{
  struct ddsi_serdata *sd = NULL;
  dds_sample_info_t si;
  dds_return_t rc;
  while ((rc = dds_takecdr (rd, &sd, 1, &si, DDS_ANY_STATE)) > 0)
  {
    bool valid = si.valid_data;
    if (valid)
    {
      uint32_t size = ddsi_serdata_size (sd);
      unsigned char *b = malloc (size);
      ddsi_serdata_to_ser (sd, 0, size, b);
      for (uint32_t i = 0; i < size; i++)
        printf ("%02x", b[i]);
      printf ("\n");
      fflush (stdout);
      free (b);
    }
    ddsi_serdata_unref (sd);
    if (valid)
      return 1;
  }
  return rc;
}

/* echo --listener: the reader's data-available listener writes each
 * sample back on the thread that received it, as ddsperf pong does, so a
 * round trip through it has no thread hop of the echo's own. */
struct echo_listener {
  dds_entity_t wr;
  ddsrt_atomic_uint32_t got;
};

static void echo_available (dds_entity_t rd, void *arg)
{
  struct echo_listener *e = arg;
  void *buf[1] = { NULL };
  dds_sample_info_t si;
  dds_return_t rc;
  while ((rc = dds_take (rd, buf, &si, 1, 1)) > 0)
  {
    if (si.valid_data)
    {
      if (dds_write (e->wr, buf[0]) < 0)
        fprintf (stderr, "cycpeer: echo write failed\n");
      dds_write_flush (e->wr);
      ddsrt_atomic_inc32 (&e->got);
    }
    dds_return_loan (rd, buf, rc);
    buf[0] = NULL;
  }
}

/* sub and echo: take samples as they come; sub prints each (see
 * print_ser, little endian), echo writes each to --out-topic. Both stop
 * after --count samples (0: never) and fail after --timeout seconds
 * without one. */
static int sub (const struct opts *o, const struct peer_type *t, dds_entity_t pp, bool echo)
{
  dds_entity_t tp = dds_create_topic (pp, t->desc, o->topic, NULL, NULL);
  check (tp, "create topic: %s");
  dds_qos_t *q = make_qos (o);
  dds_entity_t wr = 0;
  if (echo)
  {
    if (o->out_topic == NULL)
      die ("%s", "echo needs --out-topic");
    dds_entity_t otp = dds_create_topic (pp, t->desc, o->out_topic, NULL, NULL);
    check (otp, "create topic: %s");
    wr = dds_create_writer (pp, otp, q, NULL);
    check (wr, "create writer: %s");
  }
  if (o->listener && !echo)
    die ("%s", "--listener is for echo");
  static struct echo_listener el;
  el.wr = wr;
  ddsrt_atomic_st32 (&el.got, 0);
  dds_listener_t *l = NULL;
  if (o->listener)
  {
    l = dds_create_listener (&el);
    dds_lset_data_available (l, echo_available);
  }
  dds_entity_t rd = dds_create_reader (pp, tp, q, l);
  check (rd, "create reader: %s");
  if (l)
    dds_delete_listener (l);
  dds_delete_qos (q);
  check (dds_set_status_mask (rd, DDS_DATA_AVAILABLE_STATUS), "status mask: %s");
  dds_entity_t ws = dds_create_waitset (pp);
  check (dds_waitset_attach (ws, rd, 0), "attach: %s");
  fprintf (stderr, "cycpeer: ready\n");
  int got = 0, last = 0;
  bool matched = false;
  dds_time_t deadline = dds_time () + (dds_duration_t) (o->timeout * 1e9);
  while (!stopping && (o->count == 0 || got < o->count))
  {
    if (!matched)
    {
      /* Say when the reader knows a writer: a volatile reader drops what
       * a writer sent before that, so tests start writing after it. */
      dds_subscription_matched_status_t ms;
      check (dds_get_subscription_matched_status (rd, &ms), "matched status: %s");
      if ((matched = ms.current_count > 0))
        fprintf (stderr, "cycpeer: matched %d\n", (int) ms.current_count);
    }
    dds_return_t rc = dds_waitset_wait (ws, NULL, 0, DDS_MSECS (50));
    check (rc, "wait: %s");
    if (o->listener)
      got = (int) ddsrt_atomic_ld32 (&el.got);
    if (got > last)
    {
      last = got;
      deadline = dds_time () + (dds_duration_t) (o->timeout * 1e9);
    }
    if (dds_time () > deadline)
      die ("timed out after %s", got ? "some samples" : "no sample");
    void *buf[1] = { NULL };
    dds_sample_info_t si;
    while (o->raw && !echo && (rc = take_raw (rd)) > 0)
      got++;
    while (!o->raw && !o->listener && (rc = dds_take (rd, buf, &si, 1, 1)) > 0)
    {
      if (si.valid_data)
      {
        got++;
        if (echo)
          check (dds_write (wr, buf[0]), "write: %s");
        else
          print_ser (t, buf[0], false);
      }
      dds_return_loan (rd, buf, rc);
      buf[0] = NULL;
    }
    check (rc, "take: %s");
  }
  fprintf (stderr, "cycpeer: received %d\n", got);
  if (echo)
    nap (o->linger);
  return 0;
}

static int run (int argc, char **argv)
{
  struct opts o = parse_opts (argc, argv);
  const struct peer_type *t = find_type (o.type);
  struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: a read ends */
  sigemptyset (&sa.sa_mask);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  dds_entity_t pp = dds_create_participant (o.domain, NULL, NULL);
  check (pp, "create participant: %s");
  int rc;
  if (strcmp (argv[1], "pub") == 0)
    rc = pub (&o, t, pp);
  else
    rc = sub (&o, t, pp, strcmp (argv[1], "echo") == 0);
  dds_delete (pp);
  return rc;
}

int main (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "dump") == 0)
    return dump ();
  if (argc >= 2 && strcmp (argv[1], "types") == 0)
  {
    for (const struct peer_type *t = peer_types; t->name; t++)
      printf ("%s %s\n", t->name, t->dds_name);
    return 0;
  }
  if (argc >= 2 && (strcmp (argv[1], "pub") == 0 || strcmp (argv[1], "sub") == 0 || strcmp (argv[1], "echo") == 0))
    return run (argc, argv);
  fprintf (stderr, "usage: cycpeer dump|types|pub|sub|echo [options] (see README.md)\n");
  return 2;
}
