#!/bin/sh
# The image's entrypoint: `onnxocr ARGS`, exec'd (so onnxocr is PID 1 and gets SIGTERM itself),
# after pulling the catalog's model sets named by ONNXOCR_PULL (comma or space separated, e.g.
# "ppocrv6-tiny") into ONNXOCR_MODELS_DIR (default /models) when the command loads models
# (serve, run, bench); its report goes to stderr, since `run` prints its answer on stdout.
# `onnxocr models pull` reads ONNXOCR_MODELS_MIRROR itself. A set already
# installed that verifies is left alone (no download); a failed pull stops the container (exit 5)
# rather than serving without the set asked for. docs/DEPLOYMENT.md, "Model sets from the catalog".
set -eu
case "${1:-}" in
  serve | run | bench)
    if [ -n "${ONNXOCR_PULL:-}" ]; then
      set -f  # the names are split on commas and spaces, never globbed
      # shellcheck disable=SC2046
      /usr/local/bin/onnxocr models pull $(printf '%s' "$ONNXOCR_PULL" | tr ',' ' ') \
        --dir "${ONNXOCR_MODELS_DIR:-/models}" >&2
      set +f
    fi
    ;;
esac
exec /usr/local/bin/onnxocr "$@"
