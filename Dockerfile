# OnnxOCR Server image: `docker build -t onnxocr .` then `docker run -p 5005:5005 onnxocr`.
# Models (PP-OCRv4: the int8 set, the default, and fp32) are inside; it works offline. All settings are ONNXOCR_* environment
# variables (`docker run --rm onnxocr serve --help`). Deployment guide: docs/DEPLOYMENT.md.
#
# Builder: the project's own scripts, exactly as CI runs them (bootstrap picks the ONNX Runtime
# library for amd64 or arm64; the release build makes the int8 set with scripts/quantize-models). Runtime: debian:bookworm-slim with only the shared libraries the
# binary needs (libcurl among them, for `onnxocr models pull`, with the CA certificates), the ONNX
# Runtime library, the default models and a tiny health checker.
# No heredocs (`RUN <<EOF`): podman 4.3 does not support them.

FROM debian:bookworm-slim AS builder
WORKDIR /src
# Behind a TLS-intercepting proxy, pass its CA certificates (PEM text) to reach the npm
# registry: --build-arg EXTRA_CA_CERTS="$(cat proxy-ca.crt)". Builder stage only.
ARG EXTRA_CA_CERTS=
# Packages, ONNX Runtime and models first: this layer stays cached while the sources change.
COPY scripts/bootstrap scripts/bootstrap
RUN if [ -n "$EXTRA_CA_CERTS" ]; then \
      mkdir -p /usr/local/share/ca-certificates \
      && printf '%s\n' "$EXTRA_CA_CERTS" >/usr/local/share/ca-certificates/build-extra.crt \
      && export NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/build-extra.crt; \
    fi \
    && ./scripts/bootstrap --no-test-deps \
    && rm -rf /var/lib/apt/lists/* /root/.npm
COPY . .
RUN ./scripts/build release
# The health checker (libc only), and the Debian packages that provide the binary's NEEDED
# libraries, found with dpkg so the runtime stage follows the link line when it changes.
RUN mkdir -p /out \
    && gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -s -Wall -Wextra -Werror \
       -o /out/onnxocr-healthcheck docker/healthcheck.c \
    && for lib in $(readelf -d build/release/onnxocr | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do \
         case "$lib" in libonnxruntime.so*) continue ;; esac; \
         pkg=$(dpkg -S "*/$(gcc -print-multiarch)/$lib" 2>/dev/null | sed 's/: .*//; s/, /\n/g' | sed 's/:.*//'); \
         [ -n "$pkg" ] || { echo "no Debian package provides $lib" >&2; exit 1; }; \
         echo "$pkg" >>/out/runtime-packages.all; \
       done \
    && sort -u /out/runtime-packages.all >/out/runtime-packages \
    && echo "runtime packages:" $(cat /out/runtime-packages)

FROM debian:bookworm-slim
# Runtime libraries only (the -slim base already keeps documentation out), and the user.
# OpenCV's core library links libGLX (OpenGL interop the server never calls), whose package
# depends on Mesa's drivers: LLVM and friends, about 165 MB. A local empty package that provides
# libglx-mesa0 satisfies that dependency, so dpkg's records stay consistent without Mesa.
COPY --from=builder /out/runtime-packages /tmp/runtime-packages
RUN mkdir -p /tmp/no-mesa/DEBIAN \
    && printf '%s\n' 'Package: onnxocr-no-mesa' 'Version: 1.0' 'Architecture: all' \
       'Maintainer: OnnxOCR Server' 'Provides: libglx-mesa0' 'Priority: optional' \
       'Description: satisfies libglx0 without Mesa (OCR never renders with OpenGL)' \
       >/tmp/no-mesa/DEBIAN/control \
    && dpkg-deb --build /tmp/no-mesa /tmp/no-mesa.deb >/dev/null \
    && dpkg -i /tmp/no-mesa.deb \
    && apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       $(cat /tmp/runtime-packages) ca-certificates \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log \
       /tmp/runtime-packages /tmp/no-mesa /tmp/no-mesa.deb \
    && if dpkg-query -W libgl1-mesa-dri >/dev/null 2>&1; then echo "Mesa came in" >&2; exit 1; fi \
    && groupadd --system --gid 10001 onnxocr \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin onnxocr \
    && install -d -o 10001 -g 10001 -m 0700 /var/lib/onnxocr
# The binary's RUNPATH names the builder's tree; /usr/local/lib is on the loader's path instead.
COPY --from=builder /src/third_party/onnxruntime/lib/libonnxruntime.so.1 /usr/local/lib/
COPY --from=builder /src/models/ppocrv4 /models/ppocrv4
COPY --from=builder /src/models/ppocrv4-int8 /models/ppocrv4-int8
COPY --from=builder /out/onnxocr-healthcheck /src/build/release/onnxocr /usr/local/bin/
COPY docker/entrypoint.sh /usr/local/bin/onnxocr-entrypoint
# Fail the build if any library is missing, and prove the binary starts. /models itself (not the
# sets in it) belongs to the server's user, so `onnxocr models pull` (ONNXOCR_PULL) can install
# sets beside the default ones when /models is a volume.
RUN ldconfig \
    && if ldd /usr/local/bin/onnxocr | grep 'not found'; then exit 1; fi \
    && ldd /usr/local/bin/onnxocr | grep libonnxruntime \
    && /usr/local/bin/onnxocr serve --help >/dev/null \
    && /usr/local/bin/onnxocr models list >/dev/null \
    && chmod 0755 /usr/local/bin/onnxocr-entrypoint \
    && chown 10001:10001 /models

USER 10001:10001
WORKDIR /tmp
ENV ONNXOCR_HOST=0.0.0.0 \
    ONNXOCR_PORT=5005 \
    ONNXOCR_LOG_FORMAT=json \
    ONNXOCR_DATA_DIR=/var/lib/onnxocr
# Jobs (their database and uploads) live here and survive a restart of the container when it is
# a volume: `docker run -v onnxocr-data:/var/lib/onnxocr ...` (docs/DEPLOYMENT.md, "Jobs").
# Model sets from the catalog: ONNXOCR_PULL=ppocrv6-tiny pulls them into /models at start, which
# must then be a volume (docs/DEPLOYMENT.md, "Model sets from the catalog").
VOLUME /var/lib/onnxocr
EXPOSE 5005
# The server drains in-flight requests on SIGTERM for up to 30 s: give `docker stop` -t 35.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/onnxocr-healthcheck"]
# onnxocr itself, exec'd by a small script that first pulls the sets ONNXOCR_PULL names, if any
# (docker/entrypoint.sh); `docker run onnxocr run ...` and every other subcommand work as before.
ENTRYPOINT ["/usr/local/bin/onnxocr-entrypoint"]
CMD ["serve"]
