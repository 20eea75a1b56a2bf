/*
 * qpb_json.c — the flat-object reader and the builder (see qpb_json.h).
 * The reader is strict on purpose: a spec that is not exactly JSON is more
 * likely a bug in its producer than something to guess about.
 */
#include "qpb_json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    const char *p;
    const char *start;
    char *err;
    size_t err_len;
} reader;

static bool fail(reader *r, const char *what)
{
    snprintf(r->err, r->err_len, "invalid JSON at offset %ld: %s", (long)(r->p - r->start), what);
    return false;
}

static void skip_ws(reader *r)
{
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
        r->p++;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads a string into out (UTF-8; \u escapes of the BMP are encoded). A
 * string that does not fit fails unless truncated is given: then out keeps
 * what fits and *truncated says so. */
static bool read_string(reader *r, char *out, size_t cap, const char *what, bool *truncated)
{
    if (*r->p != '"')
        return fail(r, what);
    r->p++;
    size_t n = 0;
    if (truncated != NULL)
        *truncated = false;
    for (;;) {
        unsigned char c = (unsigned char)*r->p;
        char buf[4];
        size_t len = 1;
        if (c == '\0')
            return fail(r, "unterminated string");
        if (c < 0x20)
            return fail(r, "control character in string");
        r->p++;
        if (c == '"')
            break;
        buf[0] = (char)c;
        if (c == '\\') {
            char e = *r->p++;
            switch (e) {
            case '"': case '\\': case '/': buf[0] = e; break;
            case 'b': buf[0] = '\b'; break;
            case 'f': buf[0] = '\f'; break;
            case 'n': buf[0] = '\n'; break;
            case 'r': buf[0] = '\r'; break;
            case 't': buf[0] = '\t'; break;
            case 'u': {
                unsigned cp = 0;
                for (int i = 0; i < 4; i++) {
                    int d = hex_digit(*r->p);
                    if (d < 0)
                        return fail(r, "bad \\u escape");
                    cp = cp * 16 + (unsigned)d;
                    r->p++;
                }
                if (cp >= 0xD800 && cp <= 0xDFFF)
                    return fail(r, "surrogate \\u escapes are not supported");
                if (cp < 0x80) {
                    buf[0] = (char)cp;
                } else if (cp < 0x800) {
                    buf[0] = (char)(0xC0 | (cp >> 6));
                    buf[1] = (char)(0x80 | (cp & 0x3F));
                    len = 2;
                } else {
                    buf[0] = (char)(0xE0 | (cp >> 12));
                    buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    buf[2] = (char)(0x80 | (cp & 0x3F));
                    len = 3;
                }
                break;
            }
            default:
                r->p--;
                return fail(r, "bad escape in string");
            }
        }
        if (truncated != NULL && (*truncated || n + len >= cap)) {
            *truncated = true;
            continue;
        }
        if (n + len >= cap) {
            char msg[96];
            snprintf(msg, sizeof msg, "string longer than %zu bytes", cap - 1);
            return fail(r, msg);
        }
        memcpy(out + n, buf, len);
        n += len;
    }
    out[n] = '\0';
    return true;
}

/* JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool read_number(reader *r, qpb_json_field *f)
{
    const char *s = r->p, *q = s;
    bool integral = true;
    if (*q == '-')
        q++;
    if (*q == '0') {
        q++;
    } else if (*q >= '1' && *q <= '9') {
        while (*q >= '0' && *q <= '9')
            q++;
    } else {
        return fail(r, "bad number");
    }
    if (*q == '.') {
        integral = false;
        q++;
        if (!(*q >= '0' && *q <= '9'))
            return fail(r, "bad number: digit expected after '.'");
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (*q == 'e' || *q == 'E') {
        integral = false;
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (!(*q >= '0' && *q <= '9'))
            return fail(r, "bad number: digit expected in exponent");
        while (*q >= '0' && *q <= '9')
            q++;
    }
    f->type = QPB_JSON_NUMBER;
    f->raw = s;
    f->raw_len = (size_t)(q - s);
    f->num = strtod(s, NULL);
    f->is_int = false;
    if (integral) {
        errno = 0;
        long long v = strtoll(s, NULL, 10);
        if (errno == 0) {
            f->is_int = true;
            f->i64 = v;
        }
    }
    r->p = q;
    return true;
}

static bool read_literal(reader *r, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(r->p, word, n) != 0)
        return false;
    r->p += n;
    return true;
}

bool qpb_json_parse_flat(const char *text, qpb_json_object *out, char *err, size_t err_len)
{
    reader r = {text, text, err, err_len};
    out->n = 0;
    if (text == NULL) {
        snprintf(err, err_len, "invalid JSON: NULL text");
        return false;
    }
    skip_ws(&r);
    if (*r.p != '{')
        return fail(&r, "'{' expected");
    r.p++;
    skip_ws(&r);
    if (*r.p == '}') {
        r.p++;
    } else {
        for (;;) {
            if (out->n == QPB_JSON_MAX_FIELDS)
                return fail(&r, "too many keys (at most 32)");
            qpb_json_field *f = &out->fields[out->n];
            memset(f, 0, sizeof(*f));
            skip_ws(&r);
            if (!read_string(&r, f->key, sizeof f->key, "key string expected", NULL))
                return false;
            if (qpb_json_get(out, f->key) != NULL) {
                snprintf(err, err_len, "invalid JSON: duplicate key \"%s\"", f->key);
                return false;
            }
            skip_ws(&r);
            if (*r.p != ':')
                return fail(&r, "':' expected");
            r.p++;
            skip_ws(&r);
            char c = *r.p;
            if (c == '"') {
                f->type = QPB_JSON_STRING;
                f->raw = r.p + 1;
                if (!read_string(&r, f->str, sizeof f->str, "string expected", &f->long_str))
                    return false;
                f->raw_len = (size_t)(r.p - 1 - f->raw);
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                if (!read_number(&r, f))
                    return false;
            } else if (read_literal(&r, "true")) {
                f->type = QPB_JSON_BOOL;
                f->b = true;
            } else if (read_literal(&r, "false")) {
                f->type = QPB_JSON_BOOL;
                f->b = false;
            } else if (c == '{' || c == '[') {
                snprintf(err, err_len, "invalid JSON: key \"%s\": nested objects and arrays are not accepted",
                         f->key);
                return false;
            } else {
                return fail(&r, "string, number, true or false expected");
            }
            out->n++;
            skip_ws(&r);
            if (*r.p == ',') {
                r.p++;
                continue;
            }
            if (*r.p == '}') {
                r.p++;
                break;
            }
            return fail(&r, "',' or '}' expected");
        }
    }
    skip_ws(&r);
    if (*r.p != '\0')
        return fail(&r, "trailing characters after the object");
    return true;
}

const qpb_json_field *qpb_json_get(const qpb_json_object *o, const char *key)
{
    for (uint32_t i = 0; i < o->n; i++)
        if (strcmp(o->fields[i].key, key) == 0)
            return &o->fields[i];
    return NULL;
}

/* ---- path lookup in any document ---- */

#define MAX_DEPTH 32

/* Reads one value (any JSON) at r->p. When path is not NULL the value lies on the way to the target:
 * "" means it is the target (a string, number or boolean is copied into out and *found set), else the
 * object member named by path's first segment is followed. Everything else is only checked. */
static bool walk(reader *r, const char *path, qpb_json_field *out, bool *found, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(r, "nested deeper than 32 levels");
    skip_ws(r);
    bool target = path != NULL && *path == '\0';
    char c = *r->p;
    if (c == '{' || c == '[') {
        bool object = c == '{';
        r->p++;
        skip_ws(r);
        if (*r->p == (object ? '}' : ']')) {
            r->p++;
            return true;
        }
        for (;;) {
            const char *child = NULL;
            if (object) {
                char key[QPB_JSON_MAX_KEY];
                bool long_key;
                skip_ws(r);
                if (!read_string(r, key, sizeof key, "key string expected", &long_key))
                    return false;
                size_t seg = path != NULL ? strcspn(path, ".") : 0;
                if (path != NULL && !target && !*found && !long_key && strlen(key) == seg &&
                    strncmp(key, path, seg) == 0) {
                    child = path + seg + (path[seg] == '.');
                    snprintf(out->key, sizeof out->key, "%s", key);
                }
                skip_ws(r);
                if (*r->p != ':')
                    return fail(r, "':' expected");
                r->p++;
            }
            if (!walk(r, child, out, found, depth + 1))
                return false;
            skip_ws(r);
            if (*r->p == ',') {
                r->p++;
                continue;
            }
            if (*r->p == (object ? '}' : ']')) {
                r->p++;
                return true;
            }
            return fail(r, object ? "',' or '}' expected" : "',' or ']' expected");
        }
    }
    qpb_json_field scratch;
    qpb_json_field *f = target ? out : &scratch;
    if (c == '"') {
        f->type = QPB_JSON_STRING;
        f->raw = r->p + 1;
        if (!read_string(r, f->str, sizeof f->str, "string expected", &f->long_str))
            return false;
        f->raw_len = (size_t)(r->p - 1 - f->raw);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        if (!read_number(r, f))
            return false;
    } else if (read_literal(r, "true")) {
        f->type = QPB_JSON_BOOL;
        f->b = true;
    } else if (read_literal(r, "false")) {
        f->type = QPB_JSON_BOOL;
        f->b = false;
    } else if (read_literal(r, "null")) {
        return true; /* found stays false: null names nothing */
    } else {
        return fail(r, "value expected");
    }
    if (target)
        *found = true;
    return true;
}

int qpb_json_find(const char *text, const char *path, qpb_json_field *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof(*out));
    if (text == NULL || path == NULL) {
        snprintf(err, err_len, "invalid JSON: NULL %s", text == NULL ? "text" : "path");
        return -1;
    }
    reader r = {text, text, err, err_len};
    bool found = false;
    if (!walk(&r, path, out, &found, 0))
        return -1;
    skip_ws(&r);
    if (*r.p != '\0') {
        fail(&r, "trailing characters after the document");
        return -1;
    }
    return found ? 1 : 0;
}

/* ---- builder ---- */

static void put(qpb_jw *w, const char *s, size_t n)
{
    if (w->len + n < w->cap)
        memcpy(w->buf + w->len, s, n);
    w->len += n;
    if (w->len < w->cap)
        w->buf[w->len] = '\0';
}

static void putf(qpb_jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(qpb_jw *w, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        put(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A comma before every item but the first of its level; a value right after
 * its key gets none (the key already placed it). */
static void item(qpb_jw *w)
{
    if (w->depth == 0)
        return;
    if (!w->first[w->depth])
        put(w, ",", 1);
    w->first[w->depth] = false;
}

static void value_prefix(qpb_jw *w)
{
    if (w->pending_key)
        w->pending_key = false;
    else
        item(w);
}

void qpb_jw_init(qpb_jw *w, char *buf, size_t cap)
{
    memset(w, 0, sizeof(*w));
    w->buf = buf;
    w->cap = cap;
    if (cap > 0)
        buf[0] = '\0';
}

static void open(qpb_jw *w, const char *c)
{
    value_prefix(w);
    put(w, c, 1);
    if (w->depth + 1 < sizeof w->first / sizeof w->first[0])
        w->depth++;
    w->first[w->depth] = true;
}

static void close_(qpb_jw *w, const char *c)
{
    if (w->depth > 0)
        w->depth--;
    put(w, c, 1);
}

void qpb_jw_obj_begin(qpb_jw *w) { open(w, "{"); }
void qpb_jw_obj_end(qpb_jw *w) { close_(w, "}"); }
void qpb_jw_arr_begin(qpb_jw *w) { open(w, "["); }
void qpb_jw_arr_end(qpb_jw *w) { close_(w, "]"); }

static void put_escaped(qpb_jw *w, const char *s)
{
    put(w, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            put(w, e, 2);
        } else if (c < 0x20) {
            putf(w, "\\u%04x", c);
        } else {
            put(w, s, 1);
        }
    }
    put(w, "\"", 1);
}

void qpb_jw_key(qpb_jw *w, const char *key)
{
    item(w);
    put_escaped(w, key);
    put(w, ":", 1);
    w->pending_key = true;
}

void qpb_jw_str(qpb_jw *w, const char *value)
{
    value_prefix(w);
    put_escaped(w, value);
}

void qpb_jw_u64(qpb_jw *w, uint64_t value)
{
    value_prefix(w);
    putf(w, "%llu", (unsigned long long)value);
}

void qpb_jw_i64(qpb_jw *w, int64_t value)
{
    value_prefix(w);
    putf(w, "%lld", (long long)value);
}

void qpb_jw_dbl(qpb_jw *w, double value)
{
    value_prefix(w);
    if (!isfinite(value))
        put(w, "null", 4);
    else
        putf(w, "%.15g", value);
}

void qpb_jw_bool(qpb_jw *w, bool value)
{
    value_prefix(w);
    put(w, value ? "true" : "false", value ? 4 : 5);
}

void qpb_jw_null(qpb_jw *w)
{
    value_prefix(w);
    put(w, "null", 4);
}

void qpb_jw_field(qpb_jw *w, const qpb_json_field *f)
{
    qpb_jw_key(w, f->key);
    if (f->type == QPB_JSON_BOOL) {
        qpb_jw_bool(w, f->b);
        return;
    }
    value_prefix(w);
    bool quoted = f->type == QPB_JSON_STRING;
    if (quoted)
        put(w, "\"", 1);
    put(w, f->raw, f->raw_len);
    if (quoted)
        put(w, "\"", 1);
}

bool qpb_jw_ok(const qpb_jw *w)
{
    return w->len < w->cap;
}
