// Noticing that a client hung up while nobody reads its socket (its request's work runs, or a
// stream waits for the next page): the socket turns readable, and a peek tells the end of the
// stream from bytes of a next request. Shared by the session and the stream writer.
// Thread-safety: call on the connection's strand, as every operation on its socket.
#pragma once

#include <sys/socket.h>

#include <cerrno>
#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/tcp_stream.hpp>

namespace ocr::http::internal {

// Waits until the client's socket is readable, then calls `hung_up()` when the client closed
// its end (or reset it). Ends without calling it when bytes of a next request arrive (read after
// this answer), when the wait is cancelled, or when `watching()` says the watch is over; a
// wake-up with nothing to read (readiness a read left behind) is waited out again. `watching`
// and `hung_up` keep their owner alive (a shared_from_this capture), and with it `socket`.
template <class Watching, class HungUp>
void WatchForHangup(boost::beast::tcp_stream& socket, Watching watching, HungUp hung_up) {
  socket.socket().async_wait(boost::asio::ip::tcp::socket::wait_read,
                             [&socket, watching = std::move(watching),
                              hung_up = std::move(hung_up)](boost::beast::error_code ec) mutable {
                               if (ec || !watching())
                                 return;
                               char byte = 0;
                               const ssize_t n = ::recv(socket.socket().native_handle(), &byte, 1,
                                                        MSG_PEEK | MSG_DONTWAIT);
                               if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                                 WatchForHangup(socket, std::move(watching), std::move(hung_up));
                                 return;
                               }
                               if (n > 0)
                                 return;
                               hung_up();
                             });
}

}  // namespace ocr::http::internal
