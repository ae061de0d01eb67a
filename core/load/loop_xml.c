/*
 * loop_xml.c - HatScheT / Oppermann modulo-scheduling instances: a GraphML
 * dependence graph (X.graphml) and its resource model (X_RM.xml or XRM.xml
 * beside it), read with libxml2's streaming reader.
 *
 * The meaning of every field follows HatScheT's own reader and verifier:
 *  - <Resource name latency blockingTime limit> in the RM file defines a
 *    class ("inf" or -1 is unlimited); other elements (<Cost>,
 *    physicalDelay) do not affect scheduling and are ignored. Reservation
 *    tables (<rt>) are refused rather than misread.
 *  - <node id> with <data key="name"> and <data key="uses_resource"> is an
 *    op; the node "modsched_info" carries no op and is skipped. A node
 *    without a name is named after its id.
 *  - <edge source target> with <data key="delay"> (or "latency") and
 *    <data key="distance"> is a dependence; missing values are 0. Edges may
 *    name nodes defined further down.
 * Elements are matched by local name, so a GraphML namespace is fine.
 *
 * libxml2 never prints: its errors go to a handler that keeps the first one
 * with its line and column, the network is off (XML_PARSE_NONET) and no
 * DTD or external entity is loaded. Every file is read into memory by
 * acs__loop_read_file, the one place loop readers open files.
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/load/loop_load_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/xmlreader.h>

/* ---- files ---- */

#define LOOP_FILE_MAX (512u << 20)

int acs__loop_read_file(const char *path, char **buf, size_t *len, struct acs_diag *d)
{
  FILE *f = fopen(path, "rb");
  size_t cap = 1 << 16, n = 0;
  char *b;

  *buf = NULL;
  *len = 0;
  if (!f)
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
  b = malloc(cap + 1);
  while (b) {
    size_t got = fread(b + n, 1, cap - n, f);
    n += got;
    if (n < cap)
      break;
    if (cap >= LOOP_FILE_MAX) {
      free(b);
      fclose(f);
      return acs_diag_set(d, ACS_ERANGE, path, 0, 0, "file larger than %u MiB",
                          LOOP_FILE_MAX >> 20);
    }
    char *nb = realloc(b, cap * 2 + 1);
    if (!nb) {
      free(b);
      b = NULL;
      break;
    }
    b = nb;
    cap *= 2;
  }
  if (!b) {
    fclose(f);
    return ACS_ENOMEM;
  }
  if (ferror(f)) {
    free(b);
    fclose(f);
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "read error");
  }
  fclose(f);
  b[n] = '\0';
  *buf = b;
  *len = n;
  return ACS_OK;
}

/* ---- the XML reader ---- */

struct xml_in {
  const char *path;
  xmlTextReaderPtr r;
  char *buf;
  struct acs_diag *d;
  int failed;                /* the error handler filled d */
};

/* libxml2's error callback: keeps the first error, located. */
static void on_xml_error(void *arg, xmlErrorPtr err)
{
  struct xml_in *in = arg;
  char msg[512];

  if (in->failed || !err || err->level < XML_ERR_ERROR)
    return;
  acs__xml_message(err->message, msg, sizeof(msg));
  acs_diag_set(in->d, ACS_EPARSE, in->path, err->line, err->int2, "XML: %s", msg);
  in->failed = 1;
}

void acs__xml_message(const char *message, char *buf, size_t size)
{
  size_t n;

  snprintf(buf, size, "%s", message ? message : "malformed XML");
  n = strlen(buf);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
    buf[--n] = '\0';
}

void acs__xml_drop_generic(void *ctx, const char *msg, ...)
{
  (void)ctx;
  (void)msg;
}

static int xml_open(struct xml_in *in, const char *path, struct acs_diag *d)
{
  size_t len;
  int err;

  memset(in, 0, sizeof(*in));
  in->path = path;
  in->d = d;
  if ((err = acs__loop_read_file(path, &in->buf, &len, d)) < 0)
    return err;
  if (len > INT32_MAX || strspn(in->buf, " \t\r\n") == len) {
    free(in->buf);
    return len > INT32_MAX ? acs_diag_set(d, ACS_ERANGE, path, 0, 0, "file too large")
                           : acs_diag_set(d, ACS_EPARSE, path, 0, 0, "empty file");
  }
  in->r = xmlReaderForMemory(in->buf, (int)len, NULL, NULL,
                             XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!in->r) {
    free(in->buf);
    return ACS_ENOMEM;
  }
  xmlTextReaderSetStructuredErrorHandler(in->r, on_xml_error, in);
  xmlSetGenericErrorFunc(NULL, acs__xml_drop_generic);
  return ACS_OK;
}

static void xml_close(struct xml_in *in)
{
  xmlSetGenericErrorFunc(NULL, NULL);
  if (in->r)
    xmlFreeTextReader(in->r);
  free(in->buf);
  in->r = NULL;
  in->buf = NULL;
}

/* The line of the current node (the parser itself may have read ahead). */
static int xml_line(const struct xml_in *in)
{
  xmlNodePtr node = xmlTextReaderCurrentNode(in->r);
  long line = node ? xmlGetLineNo(node) : -1;

  return line > 0 && line < INT32_MAX ? (int)line : xmlTextReaderGetParserLineNumber(in->r);
}

/* Next node: 1, 0 at the end, or a negative error (in d). */
static int xml_next(struct xml_in *in)
{
  int rc = xmlTextReaderRead(in->r);

  if (rc == 1)
    return 1;
  if (rc == 0 && !in->failed)
    return 0;
  if (!in->failed)
    acs_diag_set(in->d, ACS_EPARSE, in->path, xml_line(in), 0, "XML: malformed document");
  in->failed = 1;
  return ACS_EPARSE;
}

static int is_element(const struct xml_in *in, const char *name)
{
  const xmlChar *n;

  if (xmlTextReaderNodeType(in->r) != XML_READER_TYPE_ELEMENT)
    return 0;
  n = xmlTextReaderConstLocalName(in->r);
  return n && strcmp((const char *)n, name) == 0;
}

static int is_end(const struct xml_in *in, const char *name)
{
  const xmlChar *n;

  if (xmlTextReaderNodeType(in->r) != XML_READER_TYPE_END_ELEMENT)
    return 0;
  n = xmlTextReaderConstLocalName(in->r);
  return n && strcmp((const char *)n, name) == 0;
}

/* An attribute's value, surrounding blanks trimmed, into buf; 0 if absent. */
static int xml_attr(struct xml_in *in, const char *name, char *buf, size_t size)
{
  xmlChar *v = xmlTextReaderGetAttribute(in->r, (const xmlChar *)name);
  const char *s;
  size_t n;

  if (!v)
    return 0;
  s = (const char *)v + strspn((const char *)v, " \t\r\n");
  n = strlen(s);
  while (n > 0 && strchr(" \t\r\n", s[n - 1]))
    n--;
  snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), s);
  xmlFree(v);
  return 1;
}

/* The text of the current element, trimmed, into buf. */
static int xml_text(struct xml_in *in, char *buf, size_t size)
{
  xmlChar *v = xmlTextReaderReadString(in->r);
  const char *s;
  size_t n;

  buf[0] = '\0';
  if (!v)
    return in->failed ? ACS_EPARSE : ACS_OK;
  s = (const char *)v + strspn((const char *)v, " \t\r\n");
  n = strlen(s);
  while (n > 0 && strchr(" \t\r\n", s[n - 1]))
    n--;
  if (n >= size) {
    xmlFree(v);
    return acs_diag_set(in->d, ACS_ERANGE, in->path, xml_line(in), 0,
                        "text longer than %zu bytes", size - 1);
  }
  memcpy(buf, s, n);
  buf[n] = '\0';
  xmlFree(v);
  return ACS_OK;
}

/* A non-negative integer (or -1 / "inf" when allow_inf) in text. */
static int xml_int(struct xml_in *in, const char *text, const char *what, int allow_inf,
                   int64_t *out)
{
  if (allow_inf && (strcmp(text, "inf") == 0 || strcmp(text, "-1") == 0)) {
    *out = -1;
    return ACS_OK;
  }
  if (acs_parse_i64(text, out) < 0)
    return acs_diag_set(in->d, ACS_EPARSE, in->path, xml_line(in), 0,
                        "%s: '%s' is not an integer", what, text);
  if (*out < 0 || *out > ACS_LOOP_VALUE_MAX)
    return acs_diag_set(in->d, ACS_ERANGE, in->path, xml_line(in), 0,
                        "%s: %lld outside [0, %d]%s", what, (long long)*out, ACS_LOOP_VALUE_MAX,
                        allow_inf ? " (or -1, inf: unlimited)" : "");
  return ACS_OK;
}

/* ---- the resource model ---- */

static int rm_resource(struct xml_in *in, struct acs_loop *l, struct acs__names *classes)
{
  char name[ACS_NAME_MAX], v[64];
  int64_t lat = 0, bt = 0, lim = -1;
  int32_t line = xml_line(in), id, old;
  int err;

  if (!xml_attr(in, "name", name, sizeof(name)) || !name[0])
    return acs_diag_set(in->d, ACS_EPARSE, in->path, line, 0, "<Resource> without a name");
  if (!xml_attr(in, "latency", v, sizeof(v)))
    return acs_diag_set(in->d, ACS_EPARSE, in->path, line, 0,
                        "resource '%s' has no latency attribute", name);
  if ((err = xml_int(in, v, "latency", 0, &lat)) < 0)
    return err;
  if (xml_attr(in, "blockingTime", v, sizeof(v)) && (err = xml_int(in, v, "blockingTime", 0, &bt)) < 0)
    return err;
  if (!xml_attr(in, "limit", v, sizeof(v)))
    return acs_diag_set(in->d, ACS_EPARSE, in->path, line, 0,
                        "resource '%s' has no limit attribute", name);
  if ((err = xml_int(in, v, "limit", 1, &lim)) < 0)
    return err;
  if (lim == 0)
    return acs_diag_set(in->d, ACS_ERANGE, in->path, line, 0,
                        "resource '%s' has limit 0: no op of it could ever run", name);
  if ((id = acs_loop_add_class(l, name, lat, bt, lim, line)) < 0)
    return id;
  err = acs__names_put(classes, l->classes[id].name, id, &old);
  if (err == 1)
    return acs_diag_set(in->d, ACS_EPARSE, in->path, line, 0,
                        "duplicate resource '%s' (first at line %d)", name,
                        (int)l->classes[old].line);
  return err;
}

static int read_rm(struct acs_loop *l, const char *path, struct acs__names *classes,
                   struct acs_diag *d)
{
  struct xml_in in;
  int rc, err, root = 0;

  if ((err = xml_open(&in, path, d)) < 0)
    return err;
  while ((rc = xml_next(&in)) > 0) {
    if (xmlTextReaderNodeType(in.r) == XML_READER_TYPE_ELEMENT && !root) {
      root = 1;
      if (!is_element(&in, "ModelInformation") && !is_element(&in, "Resources")) {
        rc = acs_diag_set(d, ACS_EFORMAT, path, xml_line(&in), 0,
                          "not a HatScheT resource model (root element <%s>)",
                          (const char *)xmlTextReaderConstLocalName(in.r));
        break;
      }
    }
    if (is_element(&in, "Resource") && (rc = rm_resource(&in, l, classes)) < 0)
      break;
    if (is_element(&in, "rt") || is_element(&in, "block")) {
      rc = acs_diag_set(d, ACS_EFORMAT, path, xml_line(&in), 0,
                        "reservation tables (<%s>) are not supported",
                        (const char *)xmlTextReaderConstLocalName(in.r));
      break;
    }
  }
  if (rc == 0 && !root)
    rc = acs_diag_set(d, ACS_EPARSE, path, 1, 0, "empty file: no XML element");
  xml_close(&in);
  return rc < 0 ? rc : ACS_OK;
}

/* ---- the graph ---- */

struct pending_edge {
  char *src, *dst;       /* node ids */
  int64_t delay, distance;
  int32_t line;
};

struct gml {
  struct xml_in in;
  struct acs_loop *l;
  struct acs__names *classes;
  struct acs__names ids;     /* node id -> op */
  struct acs_arena ids_arena;
  struct pending_edge *edges;
  size_t nedges, cap_edges;
};

static int gml_node(struct gml *g)
{
  struct xml_in *in = &g->in;
  char id[ACS_NAME_MAX], name[ACS_NAME_MAX] = "", res[ACS_NAME_MAX] = "", key[64];
  int32_t line = xml_line(in), cls, op, old;
  int rc, err;
  const char *id_copy;

  if (!xml_attr(in, "id", id, sizeof(id)) || !id[0])
    return acs_diag_set(in->d, ACS_EPARSE, in->path, line, 0, "<node> without an id");
  if (strcmp(id, "modsched_info") == 0)
    return ACS_OK; /* HatScheT's own metadata, not an op */
  if (!xmlTextReaderIsEmptyElement(in->r))
    while ((rc = xml_next(in)) > 0 && !is_end(in, "node"))
      if (is_element(in, "data")) {
        if (!xml_attr(in, "key", key, sizeof(key)))
          continue;
        if (strcmp(key, "name") == 0 && (err = xml_text(in, name, sizeof(name))) < 0)
          return err;
        if (strcmp(key, "uses_resource") == 0 && (err = xml_text(in, res, sizeof(res))) < 0)
          return err;
      }
  if (in->failed)
    return ACS_EPARSE;
  (void)rc;
  if (!res[0])
    return acs_diag_set(in->d, ACS_EPARSE, in->path, line, 0,
                        "node '%s' has no uses_resource", id);
  if ((cls = acs__names_get(g->classes, res)) < 0)
    return acs_diag_set(in->d, ACS_EPARSE, in->path, line, 0,
                        "node '%s' uses resource '%s', which %s does not define", id, res,
                        g->l->rm_path);
  if ((op = acs_loop_add_op(g->l, name[0] ? name : id, cls, line)) < 0)
    return op;
  if (!(id_copy = acs_arena_strdup(&g->ids_arena, id)))
    return ACS_ENOMEM;
  err = acs__names_put(&g->ids, id_copy, op, &old);
  if (err == 1)
    return acs_diag_set(in->d, ACS_EPARSE, in->path, line, 0,
                        "duplicate node id '%s' (first at line %d)", id, (int)g->l->ops[old].line);
  return err;
}

static int gml_edge(struct gml *g)
{
  struct xml_in *in = &g->in;
  char src[ACS_NAME_MAX], dst[ACS_NAME_MAX], key[64], v[64];
  struct pending_edge e = {NULL, NULL, 0, 0, xml_line(in)};
  int rc, err;

  if (!xml_attr(in, "source", src, sizeof(src)) || !xml_attr(in, "target", dst, sizeof(dst)))
    return acs_diag_set(in->d, ACS_EPARSE, in->path, e.line, 0,
                        "<edge> without a source or target");
  if (!xmlTextReaderIsEmptyElement(in->r))
    while ((rc = xml_next(in)) > 0 && !is_end(in, "edge"))
      if (is_element(in, "data") && xml_attr(in, "key", key, sizeof(key))) {
        int is_delay = strcmp(key, "delay") == 0 || strcmp(key, "latency") == 0;
        if (!is_delay && strcmp(key, "distance") != 0)
          continue;
        if ((err = xml_text(in, v, sizeof(v))) < 0 ||
            (err = xml_int(in, v, key, 0, is_delay ? &e.delay : &e.distance)) < 0)
          return err;
      }
  if (in->failed)
    return ACS_EPARSE;
  (void)rc;
  e.src = acs_arena_strdup(&g->ids_arena, src);
  e.dst = acs_arena_strdup(&g->ids_arena, dst);
  if (!e.src || !e.dst ||
      acs_grow((void **)&g->edges, sizeof(*g->edges), &g->cap_edges, g->nedges + 1) < 0)
    return ACS_ENOMEM;
  g->edges[g->nedges++] = e;
  return ACS_OK;
}

/* Edges may name nodes defined after them: they are resolved at the end. */
static int gml_resolve(struct gml *g, struct acs_diag *d)
{
  for (size_t k = 0; k < g->nedges; k++) {
    const struct pending_edge *e = &g->edges[k];
    int32_t a = acs__names_get(&g->ids, e->src), b = acs__names_get(&g->ids, e->dst);
    int err;
    if (a < 0 || b < 0)
      return acs_diag_set(d, ACS_EPARSE, g->l->path, e->line, 0,
                          "edge %s -> %s: no node with id '%s'", e->src, e->dst,
                          a < 0 ? e->src : e->dst);
    if ((err = acs_loop_add_edge(g->l, a, b, e->delay, e->distance, e->line)) < 0)
      return err;
  }
  return ACS_OK;
}

static int read_graphml(struct acs_loop *l, const char *path, struct acs__names *classes,
                        struct acs_diag *d)
{
  struct gml g;
  int rc, err, root = 0;

  memset(&g, 0, sizeof(g));
  g.l = l;
  g.classes = classes;
  acs_arena_init(&g.ids_arena);
  if ((err = xml_open(&g.in, path, d)) < 0) {
    acs_arena_destroy(&g.ids_arena);
    return err;
  }
  while ((rc = xml_next(&g.in)) > 0) {
    if (xmlTextReaderNodeType(g.in.r) == XML_READER_TYPE_ELEMENT && !root) {
      root = 1;
      if (!is_element(&g.in, "graphml")) {
        rc = acs_diag_set(d, ACS_EFORMAT, path, xml_line(&g.in), 0,
                          "not a GraphML file (root element <%s>)",
                          (const char *)xmlTextReaderConstLocalName(g.in.r));
        break;
      }
    }
    if (is_element(&g.in, "node") && (rc = gml_node(&g)) < 0)
      break;
    if (is_element(&g.in, "edge") && (rc = gml_edge(&g)) < 0)
      break;
  }
  if (rc == 0 && !root)
    rc = acs_diag_set(d, ACS_EPARSE, path, 1, 0, "empty file: no XML element");
  if (rc == 0)
    rc = gml_resolve(&g, d);
  xml_close(&g.in);
  acs__names_free(&g.ids);
  free(g.edges);
  acs_arena_destroy(&g.ids_arena);
  return rc < 0 ? rc : ACS_OK;
}

/* ---- finding the resource model ---- */

static int file_exists(const char *p)
{
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * The data set's naming rules: beside X.graphml, X_RM.xml or XRM.xml; a
 * graph with a variant suffix (X.200MHz.graphml) shares X's model.
 */
static int find_rm(const char *path, char *out, size_t size, struct acs_diag *d)
{
  char stem[4096], tried[1024] = "";
  size_t len = strlen(path), off = 0;
  const char *base;

  if (len < 8 || len - 8 >= sizeof(stem))
    return acs_diag_set(d, ACS_EINVAL, path, 0, 0, "bad GraphML path");
  memcpy(stem, path, len - 8); /* without ".graphml" */
  stem[len - 8] = '\0';
  base = strrchr(stem, '/');
  base = base ? base + 1 : stem;
  for (int pass = 0; pass < 2; pass++) {
    static const char *const suffix[] = {"_RM.xml", "RM.xml"};
    if (pass == 1) {
      char *dot = strchr(base, '.');
      if (!dot)
        break;
      *dot = '\0';
    }
    for (int k = 0; k < 2; k++) {
      if (snprintf(out, size, "%s%s", stem, suffix[k]) >= (int)size)
        continue;
      if (file_exists(out))
        return ACS_OK;
      const char *b = strrchr(out, '/');
      off += (size_t)snprintf(tried + off, off < sizeof(tried) ? sizeof(tried) - off : 0,
                              "%s%s", off ? ", " : "", b ? b + 1 : out);
      if (off >= sizeof(tried))
        off = sizeof(tried) - 1;
    }
  }
  return acs_diag_set(d, ACS_ENOTFOUND, path, 0, 0,
                      "no resource model beside this graph (looked for %s)", tried);
}

int acs__loop_load_graphml(const char *path, struct acs_loop *l, struct acs_diag *d)
{
  struct acs__names classes;
  char rm[4096];
  int err;

  memset(&classes, 0, sizeof(classes));
  if ((err = find_rm(path, rm, sizeof(rm), d)) < 0)
    return err;
  if (!(l->rm_path = acs_arena_strdup(&l->arena, rm)))
    return ACS_ENOMEM;
  err = read_rm(l, rm, &classes, d);
  if (err < 0 && err != ACS_ENOMEM) {
    /* Name both files: the model is read because of the graph. */
    const char *b = strrchr(path, '/');
    size_t n = strlen(d->msg);
    if (n + 32 < sizeof(d->msg))
      snprintf(d->msg + n, sizeof(d->msg) - n, " (the resource model of %.*s)",
               (int)(sizeof(d->msg) - n - 30), b ? b + 1 : path);
  }
  if (err == ACS_OK)
    err = read_graphml(l, path, &classes, d);
  if (err == ACS_OK && l->nops == 0)
    err = acs_diag_set(d, ACS_EPARSE, path, 0, 0, "the graph has no nodes");
  acs__names_free(&classes);
  return err;
}
