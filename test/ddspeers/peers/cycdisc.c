/* cycdisc: one CycloneDDS participant that says whom it discovers, for
 * the discovery matrix (docs/discovery.md). Its configuration is what
 * CYCLONEDDS_URI holds, as rmw_cyclonedds's check_create_domain builds it
 * for each ROS 2 discovery range.
 *
 *   cycdisc DOMAIN SECONDS
 *
 * stdout: "self PREFIX" once, then "found PREFIX" and "lost PREFIX" as
 * participants come and go, and "reader PREFIX" for a reader another
 * participant announced by SEDP (PREFIX: the GUID prefix, 24 hex digits). It
 * runs SECONDS, or until SIGTERM, then deletes its participant and exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dds/dds.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig) { (void)sig; stop = 1; }

static void print_prefix(const char *what, const unsigned char *g)
{
  printf("%s ", what);
  for (int i = 0; i < 12; i++)
    printf("%02x", g[i]);
  printf("\n");
  fflush(stdout);
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: cycdisc DOMAIN SECONDS\n");
    return 2;
  }
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  dds_domainid_t domain = (dds_domainid_t)atoi(argv[1]);
  int seconds = atoi(argv[2]);
  dds_entity_t pp = dds_create_participant(domain, NULL, NULL);
  if (pp < 0) {
    fprintf(stderr, "create participant: %s\n", dds_strretcode(pp));
    return 1;
  }
  dds_guid_t self;
  if (dds_get_guid(pp, &self) != DDS_RETCODE_OK) {
    fprintf(stderr, "get guid failed\n");
    return 1;
  }
  print_prefix("self", self.v);
  dds_entity_t rd = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSPARTICIPANT, NULL, NULL);
  if (rd < 0) {
    fprintf(stderr, "create reader: %s\n", dds_strretcode(rd));
    return 1;
  }
  /* Endpoints reach us by SEDP once SPDP matched: a reader of another
     participant is reported as "reader PREFIX" (its participant's). */
  dds_entity_t subs = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSSUBSCRIPTION, NULL, NULL);
  if (subs < 0) {
    fprintf(stderr, "create reader: %s\n", dds_strretcode(subs));
    return 1;
  }
  fprintf(stderr, "ready\n");
  dds_time_t end = dds_time() + DDS_SECS(seconds);
  while (!stop && dds_time() < end) {
    void *samples[16] = {0};
    dds_sample_info_t infos[16];
    int n = dds_take(rd, samples, infos, 16, 16);
    for (int i = 0; i < n; i++) {
      dds_builtintopic_participant_t *p = samples[i];
      if (memcmp(p->key.v, self.v, 12) == 0)
        continue;
      if (infos[i].instance_state == DDS_IST_ALIVE) {
        if (infos[i].valid_data)
          print_prefix("found", p->key.v);
      } else {
        print_prefix("lost", p->key.v);
      }
    }
    if (n > 0)
      dds_return_loan(rd, samples, n);
    n = dds_take(subs, samples, infos, 16, 16);
    for (int i = 0; i < n; i++) {
      dds_builtintopic_endpoint_t *e = samples[i];
      if (infos[i].valid_data && infos[i].instance_state == DDS_IST_ALIVE && memcmp(e->participant_key.v, self.v, 12) != 0)
        print_prefix("reader", e->participant_key.v);
    }
    if (n > 0)
      dds_return_loan(subs, samples, n);
    dds_sleepfor(DDS_MSECS(20));
  }
  dds_delete(pp);
  return 0;
}
