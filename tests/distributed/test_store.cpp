// Rendezvous stores (ember/distributed/Store.h): every Store method on HashStore, PrefixStore,
// FileStore and TCPStore (one parametrised suite), then what is particular to each: TCPStore's
// server (ports, tenants, clients that leave, a server that dies), FileStore's file, and
// multi-process rendezvous with store_worker.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "Spawn.h"
#include "ember/distributed.h"

using namespace ember::c10d;
using namespace std::chrono_literals;

namespace {

using Bytes = std::vector<uint8_t>;

Bytes bytes(const std::string& s) { return {s.begin(), s.end()}; }

// The message of the E that f() throws; "<no error>" or "<other: ...>" otherwise.
template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<other: ") + e.what() + ">";
  }
  return "<no error>";
}

// A fresh path in a fresh directory (removed with the object).
struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/ember_store_test_XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return path + "/" + name; }
  std::string path;
};

// ---------------------------------------------------------------------------------------------
// The Store contract, on every kind.

struct StoreKind {
  std::string name;
  // Makes a store with the given timeout; `keep` holds what must outlive it.
  std::function<std::shared_ptr<Store>(std::chrono::milliseconds, std::vector<std::shared_ptr<void>>& keep)> make;
};

std::shared_ptr<Store> make_tcp(std::chrono::milliseconds timeout) {
  TCPStoreOptions o;
  o.port = 0;
  o.isServer = true;
  o.timeout = timeout;
  return std::make_shared<TCPStore>("127.0.0.1", o);
}

std::vector<StoreKind> store_kinds() {
  return {
      {"Hash",
       [](auto t, auto&) {
         auto s = std::make_shared<HashStore>();
         s->setTimeout(t);
         return s;
       }},
      {"Prefix",
       [](auto t, auto&) {
         auto s = std::make_shared<PrefixStore>("pg", std::make_shared<HashStore>());
         s->setTimeout(t);
         return s;
       }},
      {"File",
       [](auto t, auto& keep) {
         auto dir = std::make_shared<TempDir>();
         keep.push_back(dir);
         auto s = std::make_shared<FileStore>(dir->file("store"), -1);
         s->setTimeout(t);
         return s;
       }},
      {"TCP", [](auto t, auto&) { return make_tcp(t); }},
      // A client of a server whose store object is someone else's.
      {"TCPClient",
       [](auto t, auto& keep) {
         auto server = make_tcp(t);
         keep.push_back(server);
         TCPStoreOptions o;
         o.port = static_cast<TCPStore&>(*server).getPort();
         o.timeout = t;
         return std::make_shared<TCPStore>("localhost", o);
       }},
  };
}

void PrintTo(const StoreKind& k, std::ostream* os) { *os << k.name; }

class StoreTest : public ::testing::TestWithParam<StoreKind> {
 protected:
  std::shared_ptr<Store> make(std::chrono::milliseconds timeout = 10s) { return GetParam().make(timeout, keep_); }
  void TearDown() override { keep_.clear(); }
  // Destroyed after the stores the test made (declared before them in each test body).
  std::vector<std::shared_ptr<void>> keep_;
};

TEST_P(StoreTest, SetGetBytes) {
  auto s = make();
  s->set("a", "1");
  EXPECT_EQ(s->get_string("a"), "1");
  s->set("a", "two");  // overwrite
  EXPECT_EQ(s->get_string("a"), "two");
  // Keys and values are any bytes, the empty value included.
  std::string key("k\0/\xff", 4);
  Bytes value = {0, 1, 0, 255, 10};
  s->set(key, value);
  EXPECT_EQ(s->get(key), value);
  s->set("empty", Bytes{});
  EXPECT_EQ(s->get("empty"), Bytes{});
  EXPECT_TRUE(s->check({"empty"}));
  // A large value.
  Bytes big(3 << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 7 + i / 251);
  s->set("big", big);
  EXPECT_EQ(s->get("big"), big);
}

TEST_P(StoreTest, AddCountsInDecimalText) {
  auto s = make();
  EXPECT_EQ(s->add("n", 5), 5);
  EXPECT_EQ(s->add("n", -7), -2);
  EXPECT_EQ(s->add("n", 0), -2);
  EXPECT_EQ(s->get_string("n"), "-2");
  s->set("m", "40");
  EXPECT_EQ(s->add("m", 2), 42);
}

TEST_P(StoreTest, AddOnNonIntegerValueFails) {
  auto s = make();
  s->set("x", "abc");
  auto msg = error_of<DistStoreError>([&] { s->add("x", 1); });
  EXPECT_NE(msg.find("::add] key '"), std::string::npos) << msg;
  EXPECT_NE(msg.find("x' holds a value that is not an integer: 'abc'"), std::string::npos) << msg;
  EXPECT_EQ(s->get_string("x"), "abc");  // unchanged
  s->set("y", "12z");
  EXPECT_NE(error_of<DistStoreError>([&] { s->add("y", 1); }).find("not an integer"), std::string::npos);
  s->set("e", "");
  EXPECT_NE(error_of<DistStoreError>([&] { s->add("e", 1); }).find("not an integer"), std::string::npos);
  s->set("big", "9223372036854775807");
  EXPECT_NE(error_of<DistStoreError>([&] { s->add("big", 1); }).find("overflows int64"), std::string::npos);
  EXPECT_EQ(s->get_string("big"), "9223372036854775807");
}

TEST_P(StoreTest, CompareSet) {
  auto s = make();
  // Absent key, non-empty expected: nothing is set, the expected value comes back.
  EXPECT_EQ(s->compare_set("k", "x", "y"), bytes("x"));
  EXPECT_FALSE(s->check({"k"}));
  // Absent key, empty expected: set.
  EXPECT_EQ(s->compare_set("k", "", "first"), bytes("first"));
  EXPECT_EQ(s->get_string("k"), "first");
  // Present key, expected matches: set.
  EXPECT_EQ(s->compare_set("k", "first", "second"), bytes("second"));
  EXPECT_EQ(s->get_string("k"), "second");
  // Present key, expected differs: unchanged, the current value comes back.
  EXPECT_EQ(s->compare_set("k", "first", "third"), bytes("second"));
  EXPECT_EQ(s->get_string("k"), "second");
  // Present key, empty expected: only an empty value matches.
  EXPECT_EQ(s->compare_set("k", "", "fourth"), bytes("second"));
  s->set("e", Bytes{});
  EXPECT_EQ(s->compare_set("e", "", "filled"), bytes("filled"));
}

TEST_P(StoreTest, DeleteCheckNumKeys) {
  auto s = make();
  EXPECT_EQ(s->num_keys(), 0);
  s->set("a", "1");
  s->set("b", "2");
  s->add("c", 1);
  EXPECT_EQ(s->num_keys(), 3);
  EXPECT_TRUE(s->check({"a", "b", "c"}));
  EXPECT_TRUE(s->check({}));
  EXPECT_FALSE(s->check({"a", "zzz"}));
  EXPECT_TRUE(s->delete_key("b"));
  EXPECT_FALSE(s->delete_key("b"));
  EXPECT_FALSE(s->check({"b"}));
  EXPECT_EQ(s->num_keys(), 2);
  s->set("b", "again");
  EXPECT_EQ(s->get_string("b"), "again");
  EXPECT_EQ(s->num_keys(), 3);
}

TEST_P(StoreTest, WaitReturnsForPresentKeys) {
  auto s = make();
  s->set("a", "1");
  s->set("b", "1");
  s->wait({"a", "b", "a"});
  s->wait({});
  s->wait({"a"}, 10ms);
}

TEST_P(StoreTest, WaitTimeoutNamesKeysAndTimeout) {
  auto s = make(150ms);
  s->set("present", "1");
  auto t0 = std::chrono::steady_clock::now();
  auto msg = error_of<DistStoreError>([&] { s->wait({"present", "missing"}, 120ms); });
  auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, 110ms);
  EXPECT_LT(waited, 3s);
  EXPECT_NE(msg.find("::wait] timed out after 120 ms waiting for keys ["), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing'"), std::string::npos) << msg;
  // The store's own timeout: wait(keys) and get.
  msg = error_of<DistStoreError>([&] { s->wait({"missing"}); });
  EXPECT_NE(msg.find("timed out after 150 ms"), std::string::npos) << msg;
  msg = error_of<DistStoreError>([&] { s->get("missing"); });
  EXPECT_NE(msg.find("::get] timed out after 150 ms waiting for key"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
  // The store still works after a timed-out wait.
  s->set("missing", "now");
  EXPECT_EQ(s->get_string("missing"), "now");
  s->wait({"missing"}, 100ms);
}

TEST_P(StoreTest, BlockingWaitWhileAnotherThreadSets) {
  auto s = make();
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    s->wait({"k1", "k2"}, 10s);
    returned = true;
  });
  std::thread getter([&] { EXPECT_EQ(s->get_string("k2"), "v2"); });
  std::this_thread::sleep_for(50ms);
  s->set("k1", "v1");
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(returned.load());  // k2 still missing
  // Other calls go on while two threads are blocked.
  EXPECT_EQ(s->add("other", 3), 3);
  EXPECT_FALSE(s->check({"k2"}));
  s->set("k2", "v2");
  waiter.join();
  getter.join();
  EXPECT_TRUE(returned.load());
}

TEST_P(StoreTest, ConcurrentAddsAreExact) {
  auto s = make();
  constexpr int kThreads = 8, kAdds = 100;
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < kAdds; ++i) s->add("counter", 1);
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(s->add("counter", 0), kThreads * kAdds);
}

INSTANTIATE_TEST_SUITE_P(Kinds, StoreTest, ::testing::ValuesIn(store_kinds()),
                         [](const auto& info) { return info.param.name; });

// ---------------------------------------------------------------------------------------------
// PrefixStore

TEST(PrefixStore, PrefixesKeysAndSharesTheStore) {
  auto base = std::make_shared<HashStore>();
  PrefixStore a("a", base), b("b", base);
  a.set("k", "in a");
  b.set("k", "in b");
  EXPECT_EQ(base->get_string("a/k"), "in a");
  EXPECT_EQ(base->get_string("b/k"), "in b");
  EXPECT_TRUE(a.check({"k"}));
  EXPECT_FALSE(a.check({"only_b"}));
  b.set("only_b", "1");
  EXPECT_FALSE(a.check({"only_b"}));
  EXPECT_EQ(a.num_keys(), 3);  // the underlying store's count, as PyTorch
  EXPECT_EQ(a.getUnderlyingStore(), base);
  // Nested prefixes compose.
  PrefixStore nested("inner", std::make_shared<PrefixStore>("outer", base));
  nested.add("n", 2);
  EXPECT_EQ(base->get_string("outer/inner/n"), "2");
  auto msg = error_of<DistStoreError>([&] { a.wait({"absent"}, 30ms); });
  EXPECT_NE(msg.find("'a/absent'"), std::string::npos) << msg;
}

TEST(PrefixStore, TimeoutIsTheUnderlyingStores) {
  auto base = std::make_shared<HashStore>();
  base->setTimeout(40ms);
  PrefixStore p("p", base);
  EXPECT_EQ(p.getTimeout(), 40ms);
  base->setTimeout(60ms);
  auto msg = error_of<DistStoreError>([&] { p.wait({"absent"}); });
  EXPECT_NE(msg.find("timed out after 60 ms"), std::string::npos) << msg;
  p.setTimeout(70ms);
  EXPECT_EQ(base->getTimeout(), 70ms);
}

TEST(PrefixStore, NullStoreIsAnError) {
  auto msg = error_of<ember::Error>([] { PrefixStore p("p", nullptr); });
  EXPECT_EQ(msg, "[PrefixStore] store: expected a store, got null");
}

// ---------------------------------------------------------------------------------------------
// TCPStore

TEST(TCPStore, PortZeroPicksAFreePort) {
  auto s = make_tcp(5s);
  auto& t = static_cast<TCPStore&>(*s);
  EXPECT_GT(t.getPort(), 0);
  EXPECT_TRUE(t.isServer());
  EXPECT_EQ(t.getHost(), "127.0.0.1");
  TCPStoreOptions o;
  o.port = t.getPort();
  o.timeout = 5s;
  TCPStore client("127.0.0.1", o);
  EXPECT_FALSE(client.isServer());
  EXPECT_EQ(client.getPort(), t.getPort());
  client.set("from client", "1");
  EXPECT_EQ(s->get_string("from client"), "1");
}

TEST(TCPStore, BindingAPortInUseNamesThePort) {
  auto s = make_tcp(5s);
  auto port = static_cast<TCPStore&>(*s).getPort();
  TCPStoreOptions o;
  o.port = port;
  o.isServer = true;
  o.timeout = 1s;
  auto msg = error_of<DistNetworkError>([&] { TCPStore second("127.0.0.1", o); });
  EXPECT_EQ(msg, fmt::format("[TCPStore] port: the server cannot listen on port {}: Address already in use", port));
}

TEST(TCPStore, MultiTenantServersShareOnePort) {
  TCPStoreOptions o;
  o.port = 0;
  o.isServer = true;
  o.multiTenant = true;
  o.timeout = 5s;
  auto first = std::make_unique<TCPStore>("127.0.0.1", o);
  o.port = first->getPort();
  TCPStore second("127.0.0.1", o);
  EXPECT_TRUE(second.isServer());
  first->set("k", "shared");
  EXPECT_EQ(second.get_string("k"), "shared");
  // The server lives while either tenant does.
  first.reset();
  second.set("k2", "still served");
  EXPECT_EQ(second.get_string("k2"), "still served");
}

TEST(TCPStore, ConnectingToNoServerFailsAfterTheTimeout) {
  int port = ember::test::free_port();
  TCPStoreOptions o;
  o.port = static_cast<uint16_t>(port);
  o.timeout = 300ms;
  auto t0 = std::chrono::steady_clock::now();
  auto msg = error_of<DistNetworkError>([&] { TCPStore s("127.0.0.1", o); });
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(msg, fmt::format("[TCPStore] could not connect to the TCPStore server at 127.0.0.1:{} within 300 ms: "
                             "Connection refused",
                             port));
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 3s);
}

TEST(TCPStore, ClientRetriesUntilTheServerListens) {
  int port = ember::test::free_port();
  std::shared_ptr<Store> server;
  std::thread later([&] {
    std::this_thread::sleep_for(200ms);
    TCPStoreOptions o;
    o.port = static_cast<uint16_t>(port);
    o.isServer = true;
    o.timeout = 5s;
    server = std::make_shared<TCPStore>("127.0.0.1", o);
    server->set("up", "yes");
  });
  TCPStoreOptions o;
  o.port = static_cast<uint16_t>(port);
  o.timeout = 10s;
  TCPStore client("127.0.0.1", o);
  EXPECT_EQ(client.get_string("up"), "yes");
  later.join();
}

TEST(TCPStore, WaitWorkersCountsArrivals) {
  int port = ember::test::free_port();
  TCPStoreOptions o;
  o.port = static_cast<uint16_t>(port);
  o.isServer = true;
  o.numWorkers = 3;
  o.timeout = 10s;
  std::vector<std::unique_ptr<TCPStore>> clients(2);
  std::thread joiners([&] {
    TCPStoreOptions c = o;
    c.isServer = false;
    for (auto& cl : clients) {
      std::this_thread::sleep_for(50ms);
      cl = std::make_unique<TCPStore>("127.0.0.1", c);
    }
  });
  TCPStore server("127.0.0.1", o);  // returns once all three are in
  joiners.join();
  EXPECT_EQ(server.add("init/", 0), 3);
  // Too few: the error says how many arrived.
  TCPStoreOptions lonely;
  lonely.port = 0;
  lonely.isServer = true;
  lonely.numWorkers = 2;
  lonely.timeout = 200ms;
  auto msg = error_of<DistStoreError>([&] { TCPStore s("127.0.0.1", lonely); });
  EXPECT_NE(msg.find("[TCPStore] timed out after 200 ms waiting for 2 workers to connect to the TCPStore server at "
                     "127.0.0.1:"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("; 1 arrived"), std::string::npos) << msg;
}

TEST(TCPStore, ServerSurvivesClientsThatLeave) {
  auto server = make_tcp(5s);
  auto port = static_cast<TCPStore&>(*server).getPort();
  TCPStoreOptions o;
  o.port = port;
  o.timeout = 5s;
  {
    // Clients that leave while their GET or WAIT is parked at the server (timed out).
    auto client = std::make_unique<TCPStore>("127.0.0.1", o);
    client->setTimeout(100ms);
    std::thread t([&] { EXPECT_NE(error_of<DistStoreError>([&] { client->get("later"); }), "<no error>"); });
    EXPECT_NE(error_of<DistStoreError>([&] { client->wait({"later", "other"}, 50ms); }), "<no error>");
    t.join();
  }
  {
    // A connection that speaks garbage, then one that hangs up mid-frame.
    for (int i = 0; i < 2; ++i) {
      int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(port);
      ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
      std::string junk =
          i == 0 ? std::string("\x03\0\0\0\0\0\0\0\x63zz", 11) : std::string("\xff\xff\xff\0\0\0\0\0ab", 10);
      ASSERT_EQ(::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL), static_cast<ssize_t>(junk.size()));
      std::this_thread::sleep_for(20ms);
      ::close(fd);
    }
  }
  server->set("later", "1");
  EXPECT_EQ(server->get_string("later"), "1");
  TCPStore again("127.0.0.1", o);
  EXPECT_EQ(again.get_string("later"), "1");
  EXPECT_EQ(again.num_keys(), 1);
}

TEST(TCPStore, LosingTheServerIsANetworkError) {
  auto server = make_tcp(5s);
  TCPStoreOptions o;
  o.port = static_cast<TCPStore&>(*server).getPort();
  o.timeout = 10s;
  TCPStore client("127.0.0.1", o);
  client.set("k", "v");
  std::string msg;
  std::thread waiter([&] { msg = error_of<DistNetworkError>([&] { client.wait({"never"}); }); });
  std::this_thread::sleep_for(100ms);
  server.reset();  // stops the server thread and closes every connection
  waiter.join();
  auto where = fmt::format("127.0.0.1:{}", o.port);
  EXPECT_NE(msg.find("[TCPStore::wait] connection to the TCPStore server at " + where + " was lost"), std::string::npos)
      << msg;
  // Later calls fail the same way, and quickly.
  auto t0 = std::chrono::steady_clock::now();
  msg = error_of<DistNetworkError>([&] { client.set("k", "v2"); });
  EXPECT_NE(msg.find("[TCPStore::set] connection to the TCPStore server at " + where + " was lost"), std::string::npos)
      << msg;
  msg = error_of<DistNetworkError>([&] { client.get("k"); });
  EXPECT_NE(msg.find("was lost"), std::string::npos) << msg;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

// ---------------------------------------------------------------------------------------------
// FileStore

TEST(FileStore, MissingDirectoryNamesThePath) {
  auto msg = error_of<DistStoreError>([] { FileStore s("/nonexistent_dir_for_ember/sub/store", 1); });
  EXPECT_EQ(msg, "[FileStore] path: cannot open '/nonexistent_dir_for_ember/sub/store': No such file or directory");
}

TEST(FileStore, InstancesOnOnePathShareKeys) {
  TempDir dir;
  FileStore a(dir.file("s"), -1), b(dir.file("s"), -1);
  EXPECT_EQ(a.getPath(), dir.file("s"));
  a.set("k", "from a");
  EXPECT_EQ(b.get_string("k"), "from a");
  EXPECT_EQ(b.add("n", 2), 2);
  EXPECT_EQ(a.add("n", 3), 5);
  EXPECT_TRUE(b.delete_key("k"));
  EXPECT_FALSE(a.check({"k"}));
  EXPECT_EQ(a.num_keys(), 1);
  // A fresh instance replays the whole file.
  FileStore c(dir.file("s"), -1);
  EXPECT_EQ(c.get_string("n"), "5");
  EXPECT_FALSE(c.check({"k"}));
}

TEST(FileStore, LastWorkerRemovesTheFile) {
  TempDir dir;
  auto path = dir.file("s");
  {
    auto a = std::make_unique<FileStore>(path, 2);
    auto b = std::make_unique<FileStore>(path, 2);
    a->set("k", "v");
    a.reset();
    EXPECT_TRUE(std::filesystem::exists(path));
    EXPECT_EQ(b->get_string("k"), "v");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  {
    FileStore keep(path, -1);
    keep.set("k", "v");
  }
  EXPECT_TRUE(std::filesystem::exists(path));
}

// ---------------------------------------------------------------------------------------------
// Several processes

std::string outputs(const std::vector<ember::test::RankResult>& rs) {
  std::string s;
  for (size_t r = 0; r < rs.size(); ++r)
    s += fmt::format("--- rank {} (exit {}) ---\n{}\n", r, rs[r].exit_code, rs[r].output);
  return s;
}

ember::test::SpawnOptions short_deadline() {
  ember::test::SpawnOptions o;
  o.deadline = std::chrono::seconds(40);
  return o;
}

TEST(StoreProcesses, ThreeRanksRendezvousOnATCPStore) {
  auto rs = ember::test::spawn_ranks({EMBER_STORE_WORKER, "tcp"}, 3, short_deadline());
  for (auto& r : rs) {
    EXPECT_EQ(r.exit_code, 0) << outputs(rs);
    EXPECT_NE(r.output.find("ok"), std::string::npos) << outputs(rs);
  }
}

TEST(StoreProcesses, ThreeRanksRendezvousOnAFileStore) {
  TempDir dir;
  auto path = dir.file("rendezvous");
  auto rs = ember::test::spawn_ranks({EMBER_STORE_WORKER, "file", path}, 3, short_deadline());
  for (auto& r : rs) {
    EXPECT_EQ(r.exit_code, 0) << outputs(rs);
    EXPECT_NE(r.output.find("ok"), std::string::npos) << outputs(rs);
  }
  EXPECT_FALSE(std::filesystem::exists(path));  // the last of the 3 removed it
}

TEST(StoreProcesses, ServerExitingGivesClientsANetworkError) {
  auto rs = ember::test::spawn_ranks({EMBER_STORE_WORKER, "server_exits"}, 2, short_deadline());
  EXPECT_EQ(rs[0].exit_code, 0) << outputs(rs);
  EXPECT_EQ(rs[1].exit_code, 0) << outputs(rs);
  EXPECT_NE(rs[1].output.find("DistNetworkError: [TCPStore::wait] connection to the TCPStore server at 127.0.0.1:"),
            std::string::npos)
      << outputs(rs);
  EXPECT_NE(rs[1].output.find("was lost"), std::string::npos) << outputs(rs);
}

}  // namespace
