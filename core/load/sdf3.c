/*
 * sdf3.c - the SDF3 XML reader (format in the README, "SDF3 graphs").
 *
 * SDF3 (TU/e) describes an SDF or CSDF graph as
 *   <sdf3 type="sdf|csdf"><applicationGraph>
 *     <sdf|csdf><actor name type><port name type="in|out" rate/>...</actor>
 *               <channel name srcActor srcPort dstActor dstPort [initialTokens]/>
 *     </sdf|csdf>
 *     <sdfProperties|csdfProperties>
 *       <actorProperties actor><processor type default><executionTime time/>...
 *       <channelProperties channel><tokenSize sz/></channelProperties>
 *       <graphProperties>...</graphProperties>
 *   </applicationGraph></sdf3>
 * and files of the SDF3 testbench read unchanged (elements acsim does not use
 * are skipped). What SDF3 lacks for an ISP is added as elements of our own
 * that SDF3 itself skips:
 *   <acsim kernelSize="BYTES" pipeline="full|input|none"/>   in actorProperties
 *   <acsimPort port="NAME" absorb="N" tokenSize="BYTES"/>    in actorProperties
 *   <acsim iterations="N" tokenSize="BYTES"/>                in graphProperties
 *
 * libxml2 parses with network access off and no entity substitution or DTD
 * loading (no external entities); its messages go to a structured handler
 * and become the one located error, never stderr. Errors are
 * "file:line: message" (libxml2 keeps no column per element; its own syntax
 * errors carry one).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/model/sdf.h"

/* Largest file read (SDF3 graphs are kilobytes). */
#define SDF3_MAX_BYTES (64 << 20)

struct rd {
  const char *path;
  struct acs_sdf_graph *g;
  struct acs_diag *d;
};

/* ---- file and parser ---- */

/*
 * Every file the reader uses is opened here (one place for a digest of the
 * workload's inputs): the whole file into a malloc'd buffer.
 */
static int slurp(const char *path, char **buf, size_t *len, struct acs_diag *d)
{
  FILE *f = fopen(path, "rb");
  size_t cap = 0, n = 0;
  char *b = NULL;
  int err = ACS_OK;

  *buf = NULL;
  if (!f)
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
  for (;;) {
    size_t got;
    if (n + 4096 + 1 > cap && (err = acs_grow((void **)&b, 1, &cap, n + 65536 + 1)) < 0)
      break;
    got = fread(b + n, 1, cap - n - 1, f);
    n += got;
    if (n > SDF3_MAX_BYTES) {
      err = acs_diag_set(d, ACS_ERANGE, path, 0, 0, "file larger than %d MiB",
                         SDF3_MAX_BYTES >> 20);
      break;
    }
    if (got == 0) {
      if (ferror(f))
        err = acs_diag_set(d, ACS_EIO, path, 0, 0, "read error");
      break;
    }
  }
  fclose(f);
  if (err < 0) {
    free(b);
    return err;
  }
  if (!b && !(b = malloc(1)))
    return ACS_ENOMEM;
  b[n] = '\0';
  *buf = b;
  *len = n;
  return ACS_OK;
}

/* The first libxml2 error of a parse, kept for the diagnostic. */
struct xml_err {
  int have, line, col;
  char msg[512];
};

static void on_xml_error(void *ctx, xmlErrorPtr e)
{
  struct xml_err *xe = ctx;

  if (xe->have || !e || e->level < XML_ERR_ERROR)
    return;
  xe->have = 1;
  xe->line = e->line;
  xe->col = e->int2;
  acs__xml_message(e->message, xe->msg, sizeof(xe->msg));
}

static int parse_xml(const char *path, xmlDocPtr *doc, struct acs_diag *d)
{
  struct xml_err xe = { 0, 0, 0, "" };
  char *buf;
  size_t len = 0;
  int err = slurp(path, &buf, &len, d);

  if (err < 0)
    return err;
  if (len > (size_t)INT32_MAX) {
    free(buf);
    return acs_diag_set(d, ACS_ERANGE, path, 0, 0, "file too large");
  }
  xmlSetStructuredErrorFunc(&xe, on_xml_error);
  xmlSetGenericErrorFunc(NULL, acs__xml_drop_generic);
  *doc = xmlReadMemory(buf, (int)len, path, NULL, XML_PARSE_NONET | XML_PARSE_NOCDATA);
  xmlSetStructuredErrorFunc(NULL, NULL);
  xmlSetGenericErrorFunc(NULL, NULL);
  free(buf);
  if (!*doc || xe.have) {
    if (*doc)
      xmlFreeDoc(*doc);
    *doc = NULL;
    return acs_diag_set(d, ACS_EPARSE, path, xe.have ? xe.line : 0,
                        xe.have && xe.col > 0 ? xe.col : 0, "%s",
                        xe.have ? xe.msg : "not a well-formed XML document");
  }
  return ACS_OK;
}

/* ---- element helpers ---- */

static int is_elem(const xmlNode *n, const char *name)
{
  return n && n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, (const xmlChar *)name) == 0;
}

static int line_of(const xmlNode *n)
{
  long l = xmlGetLineNo((xmlNodePtr)n);
  return l > 0 && l < INT32_MAX ? (int)l : 0;
}

static const xmlNode *first_child(const xmlNode *n, const char *name)
{
  for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
    if (is_elem(c, name))
      return c;
  return NULL;
}

/* An attribute value (xmlFree it), or NULL. */
static char *attr(const xmlNode *n, const char *name)
{
  return (char *)xmlGetProp((xmlNodePtr)n, (const xmlChar *)name);
}

static int fail(struct rd *r, const xmlNode *n, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(struct rd *r, const xmlNode *n, int err, const char *fmt, ...)
{
  char msg[900];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return acs_diag_set(r->d, err, r->path, n ? line_of(n) : 0, 0, "%s", msg);
}

/* A required attribute; a located error when it is missing or empty. */
static int need_attr(struct rd *r, const xmlNode *n, const char *name, char **out)
{
  *out = attr(n, name);
  if (!*out || !**out) {
    xmlFree(*out);
    *out = NULL;
    return fail(r, n, ACS_EPARSE, "<%s> needs a '%s' attribute", (const char *)n->name, name);
  }
  return ACS_OK;
}

/* An optional integer attribute in [min, max]; *present tells whether it was
 * given. */
static int int_attr(struct rd *r, const xmlNode *n, const char *name, int64_t min, int64_t max,
                    int64_t *out, int *present)
{
  char *v = attr(n, name);
  int64_t x;
  int err = ACS_OK;

  *present = v != NULL;
  if (!v)
    return ACS_OK;
  if (acs_parse_i64(v, &x) != 0)
    err = fail(r, n, ACS_EPARSE, "<%s %s=\"%s\">: not an integer", (const char *)n->name, name,
               v);
  else if (x < min || x > max)
    err = fail(r, n, ACS_ERANGE, "<%s %s=\"%s\">: out of range [%lld, %lld]",
               (const char *)n->name, name, v, (long long)min, (long long)max);
  else
    *out = x;
  xmlFree(v);
  return err;
}

/* Rejects attributes of our own elements that acsim does not know (a typo
 * in an extension must not be silently ignored). */
static int known_attrs(struct rd *r, const xmlNode *n, const char *const *names)
{
  for (const xmlAttr *a = n->properties; a; a = a->next) {
    int ok = 0;
    for (const char *const *k = names; *k && !ok; k++)
      ok = xmlStrcmp(a->name, (const xmlChar *)*k) == 0;
    if (!ok)
      return fail(r, n, ACS_EPARSE, "<%s>: unknown attribute '%s'", (const char *)n->name,
                  (const char *)a->name);
  }
  return ACS_OK;
}

/* ---- structure ---- */

static int read_port(struct rd *r, const xmlNode *n, int32_t actor)
{
  char *name = NULL, *type = NULL, *rate = NULL;
  struct acs_sdf_seq seq;
  int dir, err;
  int32_t id;

  if ((err = need_attr(r, n, "name", &name)) < 0 || (err = need_attr(r, n, "type", &type)) < 0 ||
      (err = need_attr(r, n, "rate", &rate)) < 0)
    goto out_with_attrs;
  if (strcmp(type, "in") == 0)
    dir = ACS_SDF_IN;
  else if (strcmp(type, "out") == 0)
    dir = ACS_SDF_OUT;
  else {
    err = fail(r, n, ACS_EPARSE, "port '%s': type must be 'in' or 'out', not '%s'", name, type);
    goto out_with_attrs;
  }
  if (acs_sdf_find_port(r->g, actor, name) >= 0) {
    err = fail(r, n, ACS_EPARSE, "actor '%s' has two ports named '%s'",
               r->g->actors[actor].name, name);
    goto out_with_attrs;
  }
  if ((err = acs_sdf_seq_parse(r->g, rate, &seq, r->d)) < 0) {
    err = fail(r, n, err, "port '%s' rate: %s", name, r->d->msg);
    goto out_with_attrs;
  }
  if ((id = acs_sdf_add_port(r->g, actor, name, dir, &seq, line_of(n))) < 0)
    err = id;
out_with_attrs:
  xmlFree(name);
  xmlFree(type);
  xmlFree(rate);
  return err;
}

static int read_actor(struct rd *r, const xmlNode *n)
{
  char *name = NULL, *type;
  int32_t a;
  int err;

  if ((err = need_attr(r, n, "name", &name)) < 0)
    return err;
  if (acs_sdf_find_actor(r->g, name) >= 0) {
    err = fail(r, n, ACS_EPARSE, "two actors are named '%s'", name);
    xmlFree(name);
    return err;
  }
  type = attr(n, "type");
  a = acs_sdf_add_actor(r->g, name, type, line_of(n));
  xmlFree(name);
  xmlFree(type);
  if (a < 0)
    return a;
  for (const xmlNode *c = n->children; c; c = c->next)
    if (is_elem(c, "port") && (err = read_port(r, c, a)) < 0)
      return err;
  return ACS_OK;
}

/* Resolves "actor" + "port" attributes of a channel end. */
static int channel_end(struct rd *r, const xmlNode *n, const char *actor_attr,
                       const char *port_attr, int want_dir, int32_t *port)
{
  char *an = NULL, *pn = NULL;
  int32_t a;
  int err;

  if ((err = need_attr(r, n, actor_attr, &an)) < 0 || (err = need_attr(r, n, port_attr, &pn)) < 0)
    goto out_with_names;
  if ((a = acs_sdf_find_actor(r->g, an)) < 0) {
    err = fail(r, n, ACS_EPARSE, "%s '%s' is not an actor of the graph", actor_attr, an);
    goto out_with_names;
  }
  if ((*port = acs_sdf_find_port(r->g, a, pn)) < 0) {
    err = fail(r, n, ACS_EPARSE, "actor '%s' has no port '%s'", an, pn);
    goto out_with_names;
  }
  if (r->g->ports[*port].dir != want_dir) {
    err = fail(r, n, ACS_EPARSE, "port '%s' of actor '%s' is an %s port; %s needs an %s port",
               pn, an, r->g->ports[*port].dir == ACS_SDF_IN ? "input" : "output", port_attr,
               want_dir == ACS_SDF_IN ? "input" : "output");
    goto out_with_names;
  }
  if (r->g->ports[*port].channel >= 0)
    err = fail(r, n, ACS_EPARSE, "port '%s' of actor '%s' is already connected by channel '%s'",
               pn, an, r->g->channels[r->g->ports[*port].channel].name);
out_with_names:
  xmlFree(an);
  xmlFree(pn);
  return err;
}

static int read_channel(struct rd *r, const xmlNode *n)
{
  char *name = NULL;
  int32_t sp = -1, dp = -1, c;
  int64_t d0 = 0;
  int present, err;

  if ((err = need_attr(r, n, "name", &name)) < 0)
    return err;
  if (acs_sdf_find_channel(r->g, name) >= 0) {
    err = fail(r, n, ACS_EPARSE, "two channels are named '%s'", name);
    goto out_with_name;
  }
  if ((err = channel_end(r, n, "srcActor", "srcPort", ACS_SDF_OUT, &sp)) < 0 ||
      (err = channel_end(r, n, "dstActor", "dstPort", ACS_SDF_IN, &dp)) < 0 ||
      (err = int_attr(r, n, "initialTokens", 0, (int64_t)1 << 40, &d0, &present)) < 0)
    goto out_with_name;
  if ((c = acs_sdf_add_channel(r->g, name, sp, dp, d0, line_of(n))) < 0)
    err = c;
out_with_name:
  xmlFree(name);
  return err;
}

/* ---- properties ---- */

/* The execution time of the default processor (the first marked
 * default="true", else the first one listed). */
static int read_exec_time(struct rd *r, const xmlNode *props, int32_t a)
{
  const xmlNode *proc = NULL, *et;
  char *t;
  int err;

  for (const xmlNode *c = props->children; c; c = c->next)
    if (is_elem(c, "processor")) {
      char *def = attr(c, "default");
      int is_def = def && strcmp(def, "true") == 0;
      xmlFree(def);
      if (!proc || is_def)
        proc = c;
      if (is_def)
        break;
    }
  if (!proc)
    return ACS_OK;   /* finalize reports an actor without a time */
  if (!(et = first_child(proc, "executionTime")))
    return fail(r, proc, ACS_EPARSE, "processor of actor '%s' has no <executionTime>",
                r->g->actors[a].name);
  if ((err = need_attr(r, et, "time", &t)) < 0)
    return err;
  err = acs_sdf_seq_parse(r->g, t, &r->g->actors[a].exec, r->d);
  xmlFree(t);
  if (err < 0)
    return fail(r, et, err, "execution time of actor '%s': %s", r->g->actors[a].name,
                r->d->msg);
  return ACS_OK;
}

static int read_acsim_actor(struct rd *r, const xmlNode *n, int32_t a)
{
  static const char *const names[] = { "kernelSize", "pipeline", NULL };
  struct acs_sdf_actor *ac = &r->g->actors[a];
  char *pipe;
  int present, err;

  if ((err = known_attrs(r, n, names)) < 0 ||
      (err = int_attr(r, n, "kernelSize", 0, (int64_t)1 << 40, &ac->kernel_bytes, &present)) < 0)
    return err;
  if ((pipe = attr(n, "pipeline")) != NULL) {
    int p = -1;
    for (int k = ACS_SDF_PIPE_FULL; k <= ACS_SDF_PIPE_NONE; k++)
      if (strcmp(pipe, acs_sdf_pipe_name(k)) == 0)
        p = k;
    if (p < 0)
      err = fail(r, n, ACS_EPARSE, "pipeline=\"%s\": expected full, input or none", pipe);
    else
      ac->pipe = p;
    xmlFree(pipe);
  }
  return err;
}

static int read_acsim_port(struct rd *r, const xmlNode *n, int32_t a)
{
  static const char *const names[] = { "port", "absorb", "tokenSize", NULL };
  char *pn;
  int32_t p;
  int64_t v;
  int present, err;

  if ((err = known_attrs(r, n, names)) < 0 || (err = need_attr(r, n, "port", &pn)) < 0)
    return err;
  p = acs_sdf_find_port(r->g, a, pn);
  if (p < 0)
    err = fail(r, n, ACS_EPARSE, "actor '%s' has no port '%s'", r->g->actors[a].name, pn);
  xmlFree(pn);
  if (err < 0)
    return err;
  if ((err = int_attr(r, n, "absorb", 0, (int64_t)1 << 30, &v, &present)) < 0)
    return err;
  if (present)
    r->g->ports[p].absorb = v;
  if ((err = int_attr(r, n, "tokenSize", 1, (int64_t)1 << 40, &v, &present)) < 0)
    return err;
  if (present) {
    /* An unconnected port gets its DDR channel when the graph is finalized. */
    r->g->ports[p].token_bytes = v;
    if (r->g->ports[p].channel >= 0)
      r->g->channels[r->g->ports[p].channel].token_bytes = v;
  }
  return ACS_OK;
}

static int read_actor_props(struct rd *r, const xmlNode *n)
{
  char *an;
  int32_t a;
  int err;

  if ((err = need_attr(r, n, "actor", &an)) < 0)
    return err;
  a = acs_sdf_find_actor(r->g, an);
  if (a < 0)
    err = fail(r, n, ACS_EPARSE, "<actorProperties actor=\"%s\">: no such actor", an);
  xmlFree(an);
  if (err < 0 || (err = read_exec_time(r, n, a)) < 0)
    return err;
  for (const xmlNode *c = n->children; c; c = c->next) {
    if (is_elem(c, "acsim") && (err = read_acsim_actor(r, c, a)) < 0)
      return err;
    if (is_elem(c, "acsimPort") && (err = read_acsim_port(r, c, a)) < 0)
      return err;
  }
  return ACS_OK;
}

static int read_channel_props(struct rd *r, const xmlNode *n)
{
  const xmlNode *ts;
  char *cn;
  int32_t c;
  int64_t v;
  int present, err;

  if ((err = need_attr(r, n, "channel", &cn)) < 0)
    return err;
  c = acs_sdf_find_channel(r->g, cn);
  if (c < 0)
    err = fail(r, n, ACS_EPARSE, "<channelProperties channel=\"%s\">: no such channel", cn);
  xmlFree(cn);
  if (err < 0 || !(ts = first_child(n, "tokenSize")))
    return err;
  if ((err = int_attr(r, ts, "sz", 1, (int64_t)1 << 40, &v, &present)) < 0)
    return err;
  if (present)
    r->g->channels[c].token_bytes = v;
  return ACS_OK;
}

static int read_graph_props(struct rd *r, const xmlNode *n)
{
  static const char *const names[] = { "iterations", "tokenSize", NULL };
  const xmlNode *ac = first_child(n, "acsim");
  int present, err;

  if (!ac)
    return ACS_OK;
  if ((err = known_attrs(r, ac, names)) < 0 ||
      (err = int_attr(r, ac, "iterations", 1, (int64_t)1 << 40, &r->g->iterations,
                      &present)) < 0 ||
      (err = int_attr(r, ac, "tokenSize", 1, (int64_t)1 << 40, &r->g->default_token_bytes,
                      &present)) < 0)
    return err;
  return ACS_OK;
}

static int read_properties(struct rd *r, const xmlNode *props)
{
  int err;

  for (const xmlNode *c = props ? props->children : NULL; c; c = c->next) {
    if (is_elem(c, "actorProperties"))
      err = read_actor_props(r, c);
    else if (is_elem(c, "channelProperties"))
      err = read_channel_props(r, c);
    else if (is_elem(c, "graphProperties"))
      err = read_graph_props(r, c);
    else
      continue;
    if (err < 0)
      return err;
  }
  return ACS_OK;
}

static int read_document(struct rd *r, const xmlNode *root)
{
  const xmlNode *app, *graph, *props;
  int err;

  if (!is_elem(root, "sdf3"))
    return fail(r, root, ACS_EFORMAT, "root element is <%s>, not <sdf3>",
                root ? (const char *)root->name : "");
  if (!(app = first_child(root, "applicationGraph")))
    return fail(r, root, ACS_EPARSE, "<sdf3> has no <applicationGraph>");
  graph = first_child(app, "sdf");
  if (!graph)
    graph = first_child(app, "csdf");
  if (!graph)
    return fail(r, app, ACS_EPARSE, "<applicationGraph> has no <sdf> or <csdf> graph");
  props = first_child(app, is_elem(graph, "sdf") ? "sdfProperties" : "csdfProperties");
  for (const xmlNode *c = graph->children; c; c = c->next)
    if (is_elem(c, "actor") && (err = read_actor(r, c)) < 0)
      return err;
  for (const xmlNode *c = graph->children; c; c = c->next)
    if (is_elem(c, "channel") && (err = read_channel(r, c)) < 0)
      return err;
  return read_properties(r, props);
}

int acs_sdf3_read(const char *path, struct acs_sdf_graph *g, struct acs_diag *d)
{
  char stem[ACS_NAME_MAX];
  struct rd r = { path, g, d };
  xmlDocPtr doc;
  int err;

  acs__path_stem(path, stem, sizeof(stem));
  if ((err = acs_sdf_init(g, stem, path)) < 0)
    return err;
  if ((err = parse_xml(path, &doc, d)) < 0)
    goto out_with_graph;
  err = read_document(&r, xmlDocGetRootElement(doc));
  xmlFreeDoc(doc);
  if (err == ACS_OK)
    err = acs_sdf_finalize(g, d);
  if (err == ACS_OK)
    return ACS_OK;
out_with_graph:
  acs_sdf_destroy(g);
  return err;
}

/* ---- the workload kind ---- */

static int sdf_model_build(const struct acs_workload *w, const struct acs_platform *p,
                           struct acs_graph *g, struct acs_diag *d)
{
  (void)p;
  return acs_sdf_build_dag(w->model, g, d);
}

ACS__WL_MODEL_FREE(sdf_model_free, acs_sdf_destroy)

static const struct acs_wl_model_ops sdf_model_ops = {
  .build = sdf_model_build,
  .free = sdf_model_free,
};

int acs_sdf_load(const char *path, struct acs_workload *w, struct acs_diag *d)
{
  struct acs_sdf_graph *g = malloc(sizeof(*g));
  int err;

  if (!g)
    return ACS_ENOMEM;
  if ((err = acs_sdf3_read(path, g, d)) < 0) {
    free(g);   /* the reader destroyed it */
    return err;
  }
  w->kind = ACS_WL_SDF;
  w->model = g;
  w->model_ops = &sdf_model_ops;
  return ACS_OK;
}
