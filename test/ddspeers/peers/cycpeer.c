/* cycpeer: a CycloneDDS test peer for actbridge's CDR and RTPS tests.
 * Built by the Go package test/ddspeers with peertypes.h/.c (idlc's
 * output for the peer types) and cycpeer_types.inc (generated readers).
 * Usage: see README.md. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dds/dds.h"
#include "dds/ddsi/ddsi_cdrstream.h"

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

/* Tokens of the current sample, read from one stdin line. */
static char *tok_save;

static char *tok (void)
{
  char *t = strtok_r (NULL, " \n", &tok_save);
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
  die ("bad hex digit in %s", tok_save);
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

/* dump: each stdin line "pkg/msg/Type LE|BE tokens…" becomes one stdout
 * line, the hex of the sample serialized by CycloneDDS's own CDR stream
 * writer, encapsulation header first. */
static int dump (void)
{
  char *line = NULL;
  size_t cap = 0;
  while (getline (&line, &cap, stdin) > 0)
  {
    char *name = strtok_r (line, " \n", &tok_save);
    if (name == NULL)
      continue;
    const struct peer_type *t = find_type (name);
    bool be = strcmp (tok (), "BE") == 0;
    void *sample = calloc (1, t->size);
    t->read (sample);
    if (strtok_r (NULL, " \n", &tok_save) != NULL)
      die ("%s", "tokens left after the sample");
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
    dds_stream_free_sample (sample, t->desc->m_ops);
    free (sample);
  }
  free (line);
  return 0;
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
  fprintf (stderr, "usage: cycpeer dump|types (see README.md)\n");
  return 2;
}
