//===- FakeServer.h - An HTTP server on 127.0.0.1 for the client's tests --===//
//
// Serves each connection on its own thread: reads one request (headers and
// Content-Length body), asks the handler for the raw response and writes
// it. A handler may return Hang (never answer: the connection is held until
// the client gives up or the server stops). Bounded: the destructor stops
// accepting, closes held connections and joins every thread.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_UNITTESTS_LLM_FAKESERVER_H
#define KOPT_UNITTESTS_LLM_FAKESERVER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kopt::llm::testing {

class FakeServer {
public:
  static constexpr const char *Hang = "<hang>";
  /// Gets the raw request (headers and body); returns the raw response.
  using Handler = std::function<std::string(const std::string &Request)>;

  explicit FakeServer(Handler H) : H(std::move(H)) {
    Listen = socket(AF_INET, SOCK_STREAM, 0);
    int One = 1;
    setsockopt(Listen, SOL_SOCKET, SO_REUSEADDR, &One, sizeof One);
    sockaddr_in Addr{};
    Addr.sin_family = AF_INET;
    Addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    Addr.sin_port = 0;
    bind(Listen, reinterpret_cast<sockaddr *>(&Addr), sizeof Addr);
    listen(Listen, 16);
    socklen_t Len = sizeof Addr;
    getsockname(Listen, reinterpret_cast<sockaddr *>(&Addr), &Len);
    Port = ntohs(Addr.sin_port);
    Acceptor = std::thread([this] { acceptLoop(); });
  }

  ~FakeServer() {
    Stop = true;
    Acceptor.join();
    std::vector<std::thread> Done;
    {
      std::lock_guard<std::mutex> Lock(M);
      Done.swap(Workers);
    }
    for (std::thread &T : Done)
      T.join();
    close(Listen);
  }

  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(Port) + "/v1";
  }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> Lock(M);
    return Requests;
  }

  /// A raw HTTP/1.1 response with a correct Content-Length.
  static std::string response(int Status, const std::string &Body,
                              const std::string &ExtraHeaders = "") {
    return "HTTP/1.1 " + std::to_string(Status) +
           " X\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(Body.size()) + "\r\nConnection: close\r\n" +
           ExtraHeaders + "\r\n" + Body;
  }

private:
  Handler H;
  int Listen = -1;
  int Port = 0;
  std::atomic<bool> Stop{false};
  std::thread Acceptor;
  std::mutex M;
  std::vector<std::thread> Workers;
  std::vector<std::string> Requests;

  void acceptLoop() {
    while (!Stop) {
      pollfd P{Listen, POLLIN, 0};
      if (poll(&P, 1, 20) <= 0)
        continue;
      int Client = accept(Listen, nullptr, nullptr);
      if (Client < 0)
        continue;
      std::lock_guard<std::mutex> Lock(M);
      Workers.emplace_back([this, Client] { serve(Client); });
    }
  }

  /// Reads until the headers and Content-Length bytes of body arrived.
  std::string readRequest(int Client) {
    std::string Data;
    char Buffer[65536];
    std::size_t Need = std::string::npos;
    while (!Stop) {
      pollfd P{Client, POLLIN, 0};
      if (poll(&P, 1, 20) <= 0)
        continue;
      ssize_t N = read(Client, Buffer, sizeof Buffer);
      if (N <= 0)
        break;
      Data.append(Buffer, N);
      std::size_t End = Data.find("\r\n\r\n");
      if (End != std::string::npos && Need == std::string::npos) {
        std::size_t Length = 0;
        std::size_t At = Data.find("Content-Length: ");
        if (At != std::string::npos && At < End)
          Length = std::stoul(Data.substr(At + 16));
        Need = End + 4 + Length;
      }
      if (Need != std::string::npos && Data.size() >= Need)
        break;
    }
    return Data;
  }

  void serve(int Client) {
    std::string Request = readRequest(Client);
    {
      std::lock_guard<std::mutex> Lock(M);
      Requests.push_back(Request);
    }
    std::string Reply = H(Request);
    if (Reply == Hang) {
      // Hold the connection until the client hangs up or the server stops.
      char Byte;
      while (!Stop) {
        pollfd P{Client, POLLIN, 0};
        if (poll(&P, 1, 20) > 0 && read(Client, &Byte, 1) <= 0)
          break;
      }
    } else {
      for (std::size_t Sent = 0; Sent < Reply.size();) {
        ssize_t N = send(Client, Reply.data() + Sent, Reply.size() - Sent,
                         MSG_NOSIGNAL);
        if (N <= 0)
          break;
        Sent += N;
      }
    }
    close(Client);
  }
};

} // namespace kopt::llm::testing

#endif // KOPT_UNITTESTS_LLM_FAKESERVER_H
