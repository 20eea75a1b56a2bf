/*
 * qpb_json.h — just enough JSON for the engine: a strict reader of one flat
 * object whose values are strings, numbers or booleans (specs and endpoint
 * blobs), a lookup of one value by path in any document (the CLI reading a
 * summary), and a builder that writes into a caller's buffer (summaries).
 */
#ifndef QPB_JSON_H
#define QPB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QPB_JSON_MAX_FIELDS 64
#define QPB_JSON_MAX_KEY 64
#define QPB_JSON_MAX_STR 256

typedef enum qpb_json_type { QPB_JSON_STRING, QPB_JSON_NUMBER, QPB_JSON_BOOL } qpb_json_type;

typedef struct qpb_json_field {
    char key[QPB_JSON_MAX_KEY];
    qpb_json_type type;
    char str[QPB_JSON_MAX_STR]; /* QPB_JSON_STRING, decoded; cut short when long_str */
    bool long_str;              /* the string did not fit in str: read it from raw */
    const char *raw;            /* QPB_JSON_STRING and QPB_JSON_NUMBER: its text as written */
    size_t raw_len;             /* (a string's escapes not decoded, without its quotes), */
                                /* pointing into the parsed text */
    double num;                 /* QPB_JSON_NUMBER */
    bool is_int;                /* the number had no fraction/exponent and fits int64 */
    int64_t i64;
    bool b; /* QPB_JSON_BOOL */
} qpb_json_field;

typedef struct qpb_json_object {
    qpb_json_field fields[QPB_JSON_MAX_FIELDS];
    uint32_t n;
} qpb_json_object;

/* Parses text as one flat object. Rejects nesting, null, duplicate keys,
 * trailing garbage. On failure returns false and err says where and why.
 * A string value longer than QPB_JSON_MAX_STR - 1 bytes is accepted with
 * long_str set (endpoint blobs carry long hex strings); raw stays valid as
 * long as text does. */
bool qpb_json_parse_flat(const char *text, qpb_json_object *out, char *err, size_t err_len);
const qpb_json_field *qpb_json_get(const qpb_json_object *o, const char *key);

/* Finds the value at path in text, one JSON document of any shape (objects, arrays, strings,
 * numbers, true, false, null), read as strictly as qpb_json_parse_flat reads its objects. path is
 * object keys joined by '.', e.g. "cycle_ns.p99" ("" is the document itself); arrays are checked
 * but not entered. Returns 1 and fills out when path
 * names a string, number or boolean; 0 when it names nothing, null, an object or an array; -1 when
 * text is not JSON or nests deeper than 32 levels (err says where and why). */
int qpb_json_find(const char *text, const char *path, qpb_json_field *out, char *err, size_t err_len);

/* Builder: appends into buf; once the buffer is too small it keeps counting
 * so the caller learns the size it needs (like snprintf). */
typedef struct qpb_jw {
    char *buf;
    size_t cap;
    size_t len; /* bytes needed so far, excluding the NUL */
    uint32_t depth;
    bool first[16]; /* per nesting level: no comma before the next item */
    bool pending_key; /* a key was written, its value comes next */
} qpb_jw;

void qpb_jw_init(qpb_jw *w, char *buf, size_t cap);
void qpb_jw_obj_begin(qpb_jw *w);
void qpb_jw_obj_end(qpb_jw *w);
void qpb_jw_arr_begin(qpb_jw *w);
void qpb_jw_arr_end(qpb_jw *w);
void qpb_jw_key(qpb_jw *w, const char *key); /* next value belongs to key */
void qpb_jw_str(qpb_jw *w, const char *value);
void qpb_jw_u64(qpb_jw *w, uint64_t value);
void qpb_jw_i64(qpb_jw *w, int64_t value);
void qpb_jw_dbl(qpb_jw *w, double value); /* non-finite becomes null */
void qpb_jw_bool(qpb_jw *w, bool value);
void qpb_jw_null(qpb_jw *w);
/* A field read by qpb_json_parse_flat (or qpb_json_find), while the text it was read from lives: its key,
 * and its value as that text wrote it (a long string whole, a number's digits unrounded). */
void qpb_jw_field(qpb_jw *w, const qpb_json_field *f);
/* true when everything fitted (buf is NUL-terminated then). */
bool qpb_jw_ok(const qpb_jw *w);

#endif /* QPB_JSON_H */
