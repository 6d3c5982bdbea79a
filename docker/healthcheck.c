/* onnxocr-healthcheck: the container image's HEALTHCHECK, so that no shell and no curl are
 * needed at run time. GETs /healthz from the server in the same container and exits 0 when the
 * answer is "HTTP/1.x 200", 1 otherwise (connection refused, timeout, any other status).
 *
 * Port: ONNXOCR_PORT (default 5005), the same variable `onnxocr serve` reads. Address: loopback,
 * unless ONNXOCR_HOST names one specific address (then that one). Whole check bounded by 5 s.
 * Built by the Dockerfile's builder stage with the system C compiler; libc only. */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char* WildcardOrLoopback(const char* host) {
  if (host == NULL || host[0] == '\0' || strcmp(host, "0.0.0.0") == 0) return "127.0.0.1";
  if (strcmp(host, "::") == 0 || strcmp(host, "[::]") == 0) return "::1";
  return host;
}

int main(void) {
  const char* port = getenv("ONNXOCR_PORT");
  if (port == NULL || port[0] == '\0') port = "5005";
  const char* host = WildcardOrLoopback(getenv("ONNXOCR_HOST"));
  alarm(5); /* default action of SIGALRM ends the process: unhealthy */

  struct addrinfo hints;
  memset(&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  struct addrinfo* res = NULL;
  if (getaddrinfo(host, port, &hints, &res) != 0 || res == NULL) {
    fprintf(stderr, "healthcheck: cannot resolve %s:%s\n", host, port);
    return 1;
  }
  int fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
  if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
    fprintf(stderr, "healthcheck: cannot connect to %s:%s\n", host, port);
    return 1;
  }
  freeaddrinfo(res);

  static const char kRequest[] =
      "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  if (write(fd, kRequest, sizeof kRequest - 1) != (ssize_t)(sizeof kRequest - 1)) return 1;
  char status[16];
  size_t got = 0;
  while (got < sizeof status - 1) {
    ssize_t n = read(fd, status + got, sizeof status - 1 - got);
    if (n <= 0) break;
    got += (size_t)n;
  }
  status[got] = '\0';
  close(fd);
  /* "HTTP/1.1 200 OK": the status code is bytes 9..11. */
  if (got >= 12 && strncmp(status, "HTTP/1.", 7) == 0 && strncmp(status + 9, "200", 3) == 0) {
    return 0;
  }
  fprintf(stderr, "healthcheck: unexpected answer '%.12s'\n", status);
  return 1;
}
