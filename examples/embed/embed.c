/* embed: converts a TensorFlow model with libtfxc, the way a program embedding tfxc would.
 *
 *   embed [-r RULES]... [-O NAME=VALUE]... [--report FILE] MODEL KIND OUT
 *
 * reads MODEL into memory, converts it (options as tfxc_set_option takes them, e.g.
 * -O input-shape=x:1,3), writes the KIND output (air, ge-pbtxt, ge-json, dot, tf-pbtxt) to OUT
 * and the report to FILE. Diagnostics go to stderr as "file:line:col: severity: message".
 * Exit status: the one the tfxc command gives (tfxc_status_exit_code).
 * Build: cmake (find_package(tfxc), see CMakeLists.txt here) or
 *   cc embed.c $(pkg-config --cflags --libs tfxc) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tfxc/tfxc.h>

static void print_diag(void *user, const tfxc_diagnostic *d) {
  static const char *const sev[] = {"error", "warning", "note"};
  (void)user;
  if (d->file && d->line) fprintf(stderr, "%s:%u:%u: ", d->file, d->line, d->column);
  else if (d->file) fprintf(stderr, "%s: ", d->file);
  fprintf(stderr, "%s: %s\n", sev[d->severity], d->message);
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *b = malloc(cap);
  size_t got;
  while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(b, cap *= 2);
      if (!nb) free(b);
      b = nb;
    }
  }
  fclose(f);
  *len = n;
  return b;
}

static int write_all(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv) {
  tfxc_session *s;
  if (tfxc_open(&s) != TFXC_OK) return 1;
  tfxc_set_diagnostic_handler(s, print_diag, NULL);
  const char *report = NULL;
  tfxc_status st = TFXC_OK;
  int i = 1;
  /* the run is for KIND (as `tfxc --emit KIND`); -O emit=... may name more kinds */
  if (argc >= 3) st = tfxc_set_option(s, "emit", argv[argc - 2]);
  for (; i < argc && st == TFXC_OK && argv[i][0] == '-'; i += 2) {
    if (i + 1 >= argc) break;
    if (strcmp(argv[i], "-r") == 0) {
      st = tfxc_add_rules_path(s, argv[i + 1]);
    } else if (strcmp(argv[i], "-O") == 0) {
      char *eq = strchr(argv[i + 1], '=');
      if (!eq) break;
      *eq = 0;
      st = tfxc_set_option(s, argv[i + 1], eq + 1);
    } else if (strcmp(argv[i], "--report") == 0) {
      report = argv[i + 1];
    } else {
      break;
    }
  }
  if (st == TFXC_OK && argc - i != 3) {
    fprintf(stderr, "usage: embed [-r RULES]... [-O NAME=VALUE]... [--report FILE] MODEL KIND OUT\n");
    tfxc_close(s);
    return 2;
  }
  size_t len = 0;
  char *model = st == TFXC_OK ? read_all(argv[i], &len) : NULL;
  if (st == TFXC_OK && !model) {
    fprintf(stderr, "%s: cannot read\n", argv[i]);
    st = TFXC_INPUT;
  }
  /* the bytes are handed over in memory; the path only names the model */
  if (st == TFXC_OK) st = tfxc_load_model_buffer(s, argv[i], model, len);
  free(model);
  tfxc_status run = st == TFXC_OK ? tfxc_run(s, NULL) : st;
  if (run == TFXC_OK) {
    void *out;
    size_t n;
    st = tfxc_emit(s, argv[i + 1], &out, &n);
    if (st == TFXC_OK) {
      if (write_all(argv[i + 2], out, n) != 0) {
        fprintf(stderr, "%s: cannot write\n", argv[i + 2]);
        st = TFXC_INPUT;
      }
      tfxc_free(out);
    }
  }
  if (report && st == TFXC_OK) {
    char *json;
    size_t n;
    tfxc_status r2 = tfxc_report_json(s, &json, &n);
    if (r2 == TFXC_OK) {
      if (write_all(report, json, n) != 0) r2 = TFXC_INPUT;
      tfxc_free(json);
    }
    if (run == TFXC_OK) run = r2;
  }
  tfxc_close(s);
  return tfxc_status_exit_code(run != TFXC_OK ? run : st);
}
