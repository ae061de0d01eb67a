/*
 * dnn_graph.c - a SCALE-Sim table as a layer graph, the same model an ONNX
 * network becomes, so every DNN family runs on it.
 *
 * SCALE-Sim simulates each row as a layer of its own: its IFMAP is the
 * (padded) input, its output (IFMAP - Filter) / Stride + 1 rows and
 * columns, Num Filter channels. The published tables leave out pooling,
 * branches and joins, and drop the "same" padding of the layer before, so
 * consecutive rows need not chain. Each row becomes a convolution whose
 * input is found by these rules, in this order (docs/workloads.md has
 * worked examples):
 *
 *  1. Chained: the output of an earlier row (the most recent one that
 *     matches) with the row's channels and a spatial size at most
 *     (Filter - 1) + (its Filter - 1) smaller than the row's IFMAP: the
 *     difference is padding, split evenly (the consumer's own padding plus
 *     the producer's dropped "same" padding).
 *  2. Pooled: as 1, but an integer factor k >= 2 larger (k-fold pooling
 *     left out): an implicit MaxPool k x k, stride k (`<row>.pool`; its
 *     output rounded up when that matches, so it reads all its input), or
 *     a GlobalAveragePool when the row's input is 1 x 1 (`<row>.gap`).
 *  3. Resampled: an integer factor k smaller: an implicit nearest Resize
 *     (`<row>.up`).
 *  4. Otherwise a network input of the row's shape, read from DDR.
 * Rules 1-3 look at the rows before, the latest first, and at each row try
 * 1 before 2 before 3: a row that differs in channels from the one before
 * branches from the last one that matches (a ResNet shortcut).
 *
 * A row with Num Filter = 1 and more than one channel, followed by a row
 * reading as many channels, is depthwise (group = channels, one filter
 * per channel: the same MACs SCALE-Sim counts). Outputs no later row
 * reads are network outputs. The reader reports how the rows were linked
 * in one note per file. O(rows^2) matching in the worst case (a row that
 * matches nothing looks at every row before it).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/model/layer.h"

enum { M_NONE, M_DIRECT, M_POOL, M_GAP, M_UP };

struct match {
  int how;
  int64_t k;                 /* the pooling or resampling factor */
  int64_t pad_h, pad_w;      /* total padding of the row's convolution */
};

/* What a row leaves for the rows after it. */
struct rowout {
  int32_t t;                 /* its output tensor */
  int64_t c, h, w, fh, fw;   /* channels, size, and its filter */
};

struct builder {
  struct acs_lgraph *lg;
  const char *path;
  const struct acs_dnn_layer *L;
  size_t n;
  struct rowout *out;
  uint8_t *read;             /* per row: a later row reads its output */
  int32_t ninputs;
  int32_t line;              /* of the row being added */
  int64_t count[5];          /* rows linked by each rule (M_NONE: inputs) */
};

static int64_t out_dim(int64_t in, int64_t filt, int64_t stride)
{
  return (in - filt) / stride + 1;
}

/* Padding that makes a source of size `have` the row's IFMAP `want`,
 * within `slack`; -1 when none does. */
static int64_t pad_to(int64_t have, int64_t want, int64_t slack)
{
  return want >= have && want - have <= slack ? want - have : -1;
}

/* A k-fold pooling of `have` that, padded within `slack`, is `want`: the
 * factor, or 0. Both floor and ceil of have / k count (with and without
 * ceil_mode); the smallest padding wins. */
static int64_t pool_factor(int64_t have, int64_t want, int64_t slack)
{
  for (int64_t d = 0; d <= slack && d < want; d++) {
    int64_t in = want - d, k = have / in;
    for (int64_t kk = k > 2 ? k - 1 : 2; kk <= k + 1; kk++)
      if (kk >= 2 && (have / kk == in || (have + kk - 1) / kk == in))
        return kk;
  }
  return 0;
}

/* How source o feeds row L. */
static struct match match_row(const struct rowout *o, const struct acs_dnn_layer *L)
{
  struct match m = { M_NONE, 0, 0, 0 };
  int64_t sh = (L->filt_h - 1) + (o->fh - 1), sw = (L->filt_w - 1) + (o->fw - 1);

  if (o->c != L->channels)
    return m;
  m.pad_h = pad_to(o->h, L->ifmap_h, sh);
  m.pad_w = pad_to(o->w, L->ifmap_w, sw);
  if (m.pad_h >= 0 && m.pad_w >= 0) {
    m.how = M_DIRECT;
    return m;
  }
  if (L->ifmap_h == 1 && L->ifmap_w == 1 && (o->h > 1 || o->w > 1)) {
    m = (struct match){ M_GAP, 0, 0, 0 };
    return m;
  }
  int64_t kh = pool_factor(o->h, L->ifmap_h, sh), kw = pool_factor(o->w, L->ifmap_w, sw);
  if (kh >= 2 && kh == kw) {
    int64_t ph = (o->h + kh - 1) / kh, pw = (o->w + kw - 1) / kw;
    /* The pool's output size: rounded up (ceil_mode) when that matches, so
     * the pool reads every element of its input; else rounded down. */
    m.pad_h = pad_to(ph, L->ifmap_h, sh) >= 0 ? L->ifmap_h - ph : L->ifmap_h - o->h / kh;
    m.pad_w = pad_to(pw, L->ifmap_w, sw) >= 0 ? L->ifmap_w - pw : L->ifmap_w - o->w / kw;
    m.how = M_POOL;
    m.k = kh;
    return m;
  }
  for (int64_t k = 2; k <= 64; k++)
    if (pad_to(o->h * k, L->ifmap_h, sh) >= 0 && pad_to(o->w * k, L->ifmap_w, sw) >= 0) {
      m = (struct match){ M_UP, k, L->ifmap_h - o->h * k, L->ifmap_w - o->w * k };
      return m;
    }
  return m;
}

/* ---- graph pieces ---- */

static int32_t tensor(struct builder *b, const char *name, int kind, int64_t c, int64_t h,
                      int64_t w)
{
  int32_t t = acs_lgraph_add_tensor(b->lg, name);
  if (t < 0)
    return t;
  b->lg->t[t].kind = (uint8_t)kind;
  if (c > 0) {
    const int64_t dims[4] = { 1, c, h, w };
    acs_ltensor_set_shape(&b->lg->t[t], 4, dims);
    b->lg->t[t].dtype = 1;        /* float; bytes come from the platform */
    b->lg->t[t].elem_bytes = 1;
  }
  return t;
}

/* A node reading tensor `in` into a new tensor named "<name>:0"; returns
 * the tensor or < 0. */
static int32_t node(struct builder *b, const char *name, int op, const struct acs_lattrs *a,
                    int nin, const int32_t *in, const uint8_t *role)
{
  char tn[ACS_NAME_MAX];
  snprintf(tn, sizeof(tn), "%s:0", name);
  int32_t o = tensor(b, tn, ACS_LT_ACT, 0, 0, 0);
  if (o < 0)
    return o;
  int32_t v = acs_lgraph_add_node(b->lg, name, op, a, nin, in, role, 1, &o);
  if (v < 0)
    return v;
  b->lg->n[v].line = b->line; /* errors about its ops point at the row */
  return o;
}

static void spatial(struct acs_lattrs *a, int64_t kh, int64_t kw, int64_t s,
                    int64_t ph, int64_t pw)
{
  memset(a, 0, sizeof(*a));
  a->nkernel = a->nstrides = 2;
  a->kernel[0] = kh;
  a->kernel[1] = kw;
  a->strides[0] = a->strides[1] = s;
  a->npads = 4;
  a->pads[0] = ph / 2;
  a->pads[1] = pw / 2;
  a->pads[2] = ph - ph / 2;
  a->pads[3] = pw - pw / 2;
}

/* The implicit node between source o and row i (none for M_DIRECT). */
static int32_t adapter(struct builder *b, size_t i, const struct rowout *o, const struct match *m)
{
  char name[ACS_NAME_MAX];
  static const uint8_t data[] = { ACS_LR_DATA };
  struct acs_lattrs a;

  memset(&a, 0, sizeof(a));
  switch (m->how) {
  case M_POOL:
    spatial(&a, m->k, m->k, m->k, 0, 0);
    a.ceil_mode = (o->h / m->k + m->pad_h != b->L[i].ifmap_h) ||
                  (o->w / m->k + m->pad_w != b->L[i].ifmap_w);
    snprintf(name, sizeof(name), "%s.pool", b->L[i].name);
    return node(b, name, ACS_LOP_MAX_POOL, &a, 1, &o->t, data);
  case M_GAP:
    snprintf(name, sizeof(name), "%s.gap", b->L[i].name);
    return node(b, name, ACS_LOP_GLOBAL_AVERAGE_POOL, &a, 1, &o->t, data);
  case M_UP:
    a.nscales = 4;
    a.scales[0] = a.scales[1] = 1;
    a.scales[2] = a.scales[3] = (double)m->k;
    a.resize_mode = ACS_RESIZE_NEAREST;
    snprintf(name, sizeof(name), "%s.up", b->L[i].name);
    return node(b, name, ACS_LOP_RESIZE, &a, 1, &o->t, data);
  default:
    return o->t;
  }
}

/* The input of row i: an earlier row's output through an adapter, or a new
 * network input. Sets the padding of the row's convolution. */
static int32_t row_input(struct builder *b, size_t i, int64_t *ph, int64_t *pw)
{
  const struct acs_dnn_layer *L = &b->L[i];
  char name[32];

  for (size_t j = i; j-- > 0;) {
    struct match m = match_row(&b->out[j], L);
    if (m.how == M_NONE)
      continue;
    b->read[j] = 1;
    b->count[m.how]++;
    *ph = m.pad_h;
    *pw = m.pad_w;
    return adapter(b, i, &b->out[j], &m);
  }
  b->count[M_NONE]++;
  *ph = *pw = 0;
  snprintf(name, sizeof(name), "input%d", (int)b->ninputs++);
  return tensor(b, name, ACS_LT_INPUT, L->channels, L->ifmap_h, L->ifmap_w);
}

/* Whether row i is depthwise: one filter over many channels, and the next
 * row reads as many channels. */
static int depthwise(const struct builder *b, size_t i)
{
  const struct acs_dnn_layer *L = &b->L[i];
  return L->num_filt == 1 && L->channels > 1 && i + 1 < b->n &&
         b->L[i + 1].channels == L->channels;
}

static int add_row(struct builder *b, size_t i)
{
  const struct acs_dnn_layer *L = &b->L[i];
  static const uint8_t roles[] = { ACS_LR_DATA, ACS_LR_WEIGHT };
  char wn[ACS_NAME_MAX];
  struct acs_lattrs a;
  int64_t ph, pw, k = depthwise(b, i) ? L->channels : L->num_filt;
  int32_t in[2];

  b->line = L->line;
  if ((in[0] = row_input(b, i, &ph, &pw)) < 0)
    return in[0];
  spatial(&a, L->filt_h, L->filt_w, L->stride, ph, pw);
  a.group = depthwise(b, i) ? L->channels : 1;
  snprintf(wn, sizeof(wn), "%s.weight", L->name);
  if ((in[1] = tensor(b, wn, ACS_LT_WEIGHT, 1, 1, 1)) < 0)
    return in[1];
  const int64_t wd[4] = { k, L->channels / a.group, L->filt_h, L->filt_w };
  acs_ltensor_set_shape(&b->lg->t[in[1]], 4, wd);
  int32_t o = node(b, L->name, ACS_LOP_CONV, &a, 2, in, roles);
  if (o < 0)
    return o;
  b->out[i] = (struct rowout){ o, k, out_dim(L->ifmap_h, L->filt_h, L->stride),
                               out_dim(L->ifmap_w, L->filt_w, L->stride), L->filt_h,
                               L->filt_w };
  return ACS_OK;
}

/* Inputs and outputs of the graph: the new inputs in order, then every
 * row output no later row reads. */
static int set_ends(struct builder *b)
{
  struct acs_lgraph *lg = b->lg;
  int32_t nout = 0;

  lg->inputs = acs_arena_calloc(&lg->arena, (size_t)b->ninputs + 1, sizeof(*lg->inputs));
  lg->outputs = acs_arena_calloc(&lg->arena, b->n + 1, sizeof(*lg->outputs));
  if (!lg->inputs || !lg->outputs)
    return ACS_ENOMEM;
  for (int32_t t = 0; t < lg->ntensors; t++)
    if (lg->t[t].kind == ACS_LT_INPUT)
      lg->inputs[lg->ninputs++] = t;
  for (size_t i = 0; i < b->n; i++)
    if (!b->read[i]) {
      lg->t[b->out[i].t].is_output = 1;
      lg->outputs[nout++] = b->out[i].t;
    }
  lg->noutputs = nout;
  return ACS_OK;
}

static void note_links(const struct builder *b, struct acs_diag *d)
{
  int32_t nout = 0;
  for (size_t i = 0; i < b->n; i++)
    nout += !b->read[i];
  acs_diag_note(d, b->path, 0, 0,
                "%zu SCALE-Sim rows linked as a layer graph: %lld chained, %lld after an "
                "implicit pooling, %lld after an implicit resampling, %lld reading a new "
                "input from DDR; %d output%s no row reads (network outputs)", b->n,
                (long long)b->count[M_DIRECT],
                (long long)(b->count[M_POOL] + b->count[M_GAP]), (long long)b->count[M_UP],
                (long long)b->count[M_NONE], (int)nout, nout == 1 ? "" : "s");
}

int acs__dnn_graph(const char *path, const char *name, const struct acs_dnn_layer *L, size_t n,
                   struct acs_lgraph *lg, struct acs_diag *d)
{
  struct builder b;
  int rc;

  memset(&b, 0, sizeof(b));
  b.lg = lg;
  b.path = path;
  b.L = L;
  b.n = n;
  b.out = calloc(n + 1, sizeof(*b.out));
  b.read = calloc(n + 1, 1);
  if ((rc = acs_lgraph_init(lg, name, path)) != 0)
    goto out_with_arrays;
  rc = b.out && b.read ? ACS_OK : ACS_ENOMEM;
  for (size_t i = 0; i < n && rc == ACS_OK; i++)
    rc = add_row(&b, i);
  if (rc == ACS_OK)
    rc = set_ends(&b);
  if (rc == ACS_OK)
    rc = acs_lgraph_finalize(lg, d);
  if (rc == ACS_OK)
    rc = acs_lgraph_infer(lg, d);
  if (rc == ACS_OK)
    note_links(&b, d);
  else
    acs_lgraph_destroy(lg);
out_with_arrays:
  free(b.out);
  free(b.read);
  return rc;
}
