/*
 * A compiled producer for `dcpcheck review`'s benchmark: kv-current, written from
 * dcpcheck's clause language (spec/rules/kv_current.py) and the decision fields it reads
 * (spec/rules/inputs.py, spec/rules/lookup.py); not from kv_engine.
 *
 *   kv_current_target TABLE.json HIGH PURGE    humpty_dumpty's interface: stdin lines
 *                                              "UUID SNAP_START SNAP_END START", needsRollback
 *                                              alone (no range check), humpty's text answers
 *   kv_current_target --jsonl                  the JSON-lines protocol (docs/targets.md): one
 *                                              request object a line, the producer's answer
 *                                              (range check first) a line
 *
 * The JSON reader knows only the objects dcpcheck writes (docs/targets.md); anything else
 * is answered with an "error" object.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES 64
#define FOREVER UINT64_MAX

typedef struct {
    uint64_t uuid[MAX_ENTRIES], seq[MAX_ENTRIES];
    int len;
    uint64_t high, purge;
} producer_t;

typedef struct {
    uint64_t uuid, start, snap_start, snap_end, end, remote_purge, collection_high;
    int strict, ignore_purged, has_collection_high;
} request_t;

typedef struct {
    int rollback;
    uint64_t seqno;
} answer_t;

/* The lookup: oldest entry first, the first match decides (kv-current's table scan). */
static void lookup(const producer_t *p, uint64_t uuid, int *found, uint64_t *upper) {
    *found = 0;
    *upper = p->high;
    for (int i = p->len - 1; i >= 0; i--) {
        if (p->uuid[i] == uuid) {
            *found = 1;
            *upper = i == 0 ? p->high : p->seq[i - 1];
            return;
        }
    }
}

/* kv-current's steps, in order. */
static answer_t needs_rollback(const producer_t *p, const request_t *r, uint64_t purge) {
    answer_t ok = {0, 0};
    uint64_t start = r->start, snap_start = r->snap_start, snap_end = r->snap_end;
    if (start == 0 && (!r->strict || r->uuid == 0)) return ok; /* start-zero */
    int done = r->has_collection_high && start < purge && start >= r->collection_high &&
               r->collection_high <= purge;
    if (start < purge && start != 0 && !done && r->remote_purge != purge)
        return (answer_t){1, 0}; /* purge */
    int found;
    uint64_t upper;
    lookup(p, r->uuid, &found, &upper);
    if (!found) return (answer_t){1, 0}; /* uuid-not-found */
    if (start == snap_start) snap_end = start; /* no-item-received */
    if (snap_end <= upper) return ok;          /* lagging */
    if (start == snap_end) snap_start = start; /* snapshot-complete */
    if (upper < snap_start) return (answer_t){1, upper}; /* ahead-of-upper */
    return (answer_t){1, snap_start};                    /* snapshot-mismatch */
}

/* -- humpty_dumpty's interface ------------------------------------------------------------- */

static const char *skip_to_digit(const char *s) {
    while (*s && (*s < '0' || *s > '9')) s++;
    return s;
}

static int read_table(const char *path, producer_t *p) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    p->len = 0;
    const char *s = text;
    while ((s = strstr(s, "\"id\"")) != NULL && p->len < MAX_ENTRIES) {
        s = skip_to_digit(s + 4);
        p->uuid[p->len] = strtoull(s, (char **)&s, 10);
        const char *q = strstr(s, "\"seq\"");
        if (!q) return -1;
        s = skip_to_digit(q + 5);
        p->seq[p->len] = strtoull(s, (char **)&s, 10);
        p->len++;
    }
    return p->len > 0 ? 0 : -1;
}

static int humpty(int argc, char **argv) {
    producer_t p;
    if (argc != 4 || read_table(argv[1], &p) != 0) {
        fprintf(stderr, "usage: kv_current_target TABLE.json HIGH PURGE\n");
        return 2;
    }
    p.high = strtoull(argv[2], NULL, 10);
    p.purge = strtoull(argv[3], NULL, 10);
    printf("Simulating behaviour of VBucket with highSeqno: %llu, purgeSeqno:%llu, "
           "failoverTable:\n[\n",
           (unsigned long long)p.high, (unsigned long long)p.purge);
    for (int i = 0; i < p.len; i++)
        printf("    {\"id\":%llu,\"seq\":%llu}\n", (unsigned long long)p.uuid[i],
               (unsigned long long)p.seq[i]);
    printf("]\n\n");
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        unsigned long long u, a, b, s;
        if (sscanf(line, "%llu %llu %llu %llu", &u, &a, &b, &s) != 4) continue;
        request_t r = {u, s, a, b, FOREVER, 0, 0, 0, 0, 0};
        answer_t ans = needs_rollback(&p, &r, p.purge);
        printf("Testing UUID:%llu snapshot:{%llu,%llu} start:%llu\n", u, a, b, s);
        if (ans.rollback)
            printf("  Rollback:true\n  Requested rollback seqno:%llu\n  Reason: kv-current\n",
                   (unsigned long long)ans.seqno);
        else
            printf("  Rollback:false\n");
    }
    return 0;
}

/* -- JSON lines ---------------------------------------------------------------------------- */

/* The value after "key": in s (NULL if absent). */
static const char *value_of(const char *s, const char *key) {
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    const char *at = strstr(s, quoted);
    if (!at) return NULL;
    at = strchr(at + strlen(quoted), ':');
    if (!at) return NULL;
    at++;
    while (*at == ' ') at++;
    return at;
}

static int number(const char *s, const char *key, uint64_t *out) {
    const char *v = value_of(s, key);
    if (!v || *v < '0' || *v > '9') return -1;
    *out = strtoull(v, NULL, 10);
    return 0;
}

static int boolean(const char *s, const char *key, int *out) {
    const char *v = value_of(s, key);
    if (!v) return -1;
    if (!strncmp(v, "true", 4)) *out = 1;
    else if (!strncmp(v, "false", 5)) *out = 0;
    else return -1;
    return 0;
}

static int jsonl(void) {
    static char line[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        const char *id = value_of(line, "id");
        const char *producer = value_of(line, "producer");
        const char *request = value_of(line, "request");
        if (!id || *id != '"' || !producer || !request) {
            printf("{\"id\": null, \"error\": \"not a request object\"}\n");
            fflush(stdout);
            continue;
        }
        const char *id_end = strchr(id + 1, '"');
        int id_len = id_end ? (int)(id_end - id - 1) : 0;
        producer_t p = {.len = 0};
        request_t r = {0};
        const char *table = value_of(producer, "table"), *s = table;
        while (s && (s = strstr(s, "\"id\"")) != NULL && s < request && p.len < MAX_ENTRIES) {
            s = skip_to_digit(s + 4);
            p.uuid[p.len] = strtoull(s, (char **)&s, 10);
            s = skip_to_digit(strstr(s, "\"seq\"") + 5);
            p.seq[p.len] = strtoull(s, (char **)&s, 10);
            p.len++;
        }
        const char *coll = value_of(request, "collection_high");
        int bad = !table || p.len == 0 || number(producer, "high_seqno", &p.high) ||
                  number(producer, "purge_seqno", &p.purge) || number(request, "uuid", &r.uuid) ||
                  number(request, "start", &r.start) ||
                  number(request, "snap_start", &r.snap_start) ||
                  number(request, "snap_end", &r.snap_end) || number(request, "end", &r.end) ||
                  boolean(request, "strict", &r.strict) ||
                  boolean(request, "ignore_purged", &r.ignore_purged) ||
                  number(request, "remote_purge", &r.remote_purge) || !coll;
        if (!bad && strncmp(coll, "null", 4) != 0) {
            r.has_collection_high = 1;
            bad = number(request, "collection_high", &r.collection_high);
        }
        if (bad) {
            printf("{\"id\": \"%.*s\", \"error\": \"cannot read the request\"}\n", id_len, id + 1);
        } else if (!(r.snap_start <= r.start && r.start <= r.snap_end && r.start <= r.end)) {
            printf("{\"id\": \"%.*s\", \"decision\": \"erange\", \"rollback_seqno\": null}\n",
                   id_len, id + 1);
        } else {
            answer_t a = needs_rollback(&p, &r, r.ignore_purged ? 0 : p.purge);
            if (a.rollback)
                printf("{\"id\": \"%.*s\", \"decision\": \"rollback\", \"rollback_seqno\": %llu}\n",
                       id_len, id + 1, (unsigned long long)a.seqno);
            else
                printf("{\"id\": \"%.*s\", \"decision\": \"ok\", \"rollback_seqno\": null}\n",
                       id_len, id + 1);
        }
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "--jsonl")) return jsonl();
    return humpty(argc, argv);
}
