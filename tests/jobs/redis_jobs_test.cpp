// The shared job store's parts against a real redis-server on an ephemeral loopback port, started
// and stopped by the test: the --redis URL, the stored page form, RedisPool's failure and
// recovery, and RedisJobs' admission, limits, cancellation, expiry and followed events. Pages
// read by several real servers: tests/deploy/redis_jobs_test.py.
#include "jobs/redis_jobs.h"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "document/request_options.h"
#include "jobs/job_spec_codec.h"
#include "jobs/page_codec.h"
#include "jobs/redis_client.h"
#include "support/redis_process.h"
#include "support/status_matchers.h"

namespace ocr::jobs {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

using testing::HaveRedisServer;
using testing::kRedisServer;
using testing::RedisProcess;

RedisEndpoint EndpointOf(const RedisProcess& redis) {
  RedisEndpoint e;
  e.host = "127.0.0.1";
  e.port = redis.port();
  return e;
}

#define SKIP_WITHOUT_REDIS()                                                     \
  if (!HaveRedisServer())                                                        \
  GTEST_SKIP() << kRedisServer                                                   \
               << " is not installed (Debian's redis-server; scripts/bootstrap " \
                  "installs it)"

TEST(RedisUrlTest, ParsesHostPortPasswordAndDatabase) {
  auto e = ParseRedisUrl("redis://:p%40ss-word@redis.internal:6380/2");
  ASSERT_OK(e);
  EXPECT_EQ(e->host, "redis.internal");
  EXPECT_EQ(e->port, 6380);
  EXPECT_EQ(e->password, "p%40ss-word");
  EXPECT_EQ(e->db, 2);
  EXPECT_EQ(e->Redacted(), "redis://:***@redis.internal:6380/2");

  auto plain = ParseRedisUrl("redis://localhost");
  ASSERT_OK(plain);
  EXPECT_EQ(plain->port, 6379);
  EXPECT_EQ(plain->db, 0);
  EXPECT_EQ(plain->Redacted(), "redis://localhost:6379/0");

  auto v6 = ParseRedisUrl("redis://[::1]:7000/");
  ASSERT_OK(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 7000);
}

TEST(RedisUrlTest, RefusesWhatItCannotHonour) {
  const auto tls = ParseRedisUrl("rediss://:secret@host:6380");
  EXPECT_EQ(tls.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(tls.status().message(), HasSubstr("TLS"));
  for (const char* bad :
       {"http://host", "redis://", "redis://:@host", "redis://host:0", "redis://host:99999",
        "redis://host/x", "redis://host?db=1", "redis://user:topsecret@host", "redis://ho st"}) {
    const auto e = ParseRedisUrl(bad);
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(e.status().message(), Not(HasSubstr("topsecret"))) << bad;
  }
}

TEST(PageCodecTest, RoundTripsLinesWordsAndSource) {
  document::DocumentPage page;
  page.page = 7;
  page.width = 1240;
  page.height = 1754;
  page.from_text_layer = true;
  pipeline::TextLine line;
  line.text = "Total: 12,50 € 合计";
  line.confidence = 0.875f;
  line.box = {{{10.5f, 20}, {300, 20}, {300, 48.25f}, {10.5f, 48.25f}}};
  line.words.push_back({"Total:", 0.9f, {{{10.5f, 20}, {80, 20}, {80, 48}, {10.5f, 48}}}});
  page.lines.push_back(line);
  page.lines.push_back({"second", 0.5f, {}, {}});

  auto back = DecodePage(EncodePage(page));
  ASSERT_OK(back);
  EXPECT_EQ(back->page, 7);
  EXPECT_EQ(back->width, 1240);
  EXPECT_EQ(back->height, 1754);
  EXPECT_TRUE(back->from_text_layer);
  ASSERT_EQ(back->lines.size(), 2u);
  EXPECT_EQ(back->lines[0].text, line.text);
  EXPECT_FLOAT_EQ(back->lines[0].confidence, 0.875f);
  EXPECT_FLOAT_EQ(back->lines[0].box[2].y, 48.25f);
  ASSERT_EQ(back->lines[0].words.size(), 1u);
  EXPECT_EQ(back->lines[0].words[0].text, "Total:");
  EXPECT_EQ(EncodePage(*back), EncodePage(page));

  // Blocks travel with the page: a paragraph and a table whose header cell spans two columns.
  layout::Block paragraph;
  paragraph.rows = {{0}};
  paragraph.right = 90;
  layout::Block table;
  table.type = layout::BlockType::kTable;
  table.table.row_count = 2;
  table.table.col_count = 2;
  table.table.header_rows = 1;
  table.table.cells = {{0, 0, 1, 2, {{1}}}, {1, 0, 1, 1, {}}, {1, 1, 1, 1, {{0}}}};
  page.blocks = {paragraph, table};
  auto with_blocks = DecodePage(EncodePage(page));
  ASSERT_OK(with_blocks);
  ASSERT_EQ(with_blocks->blocks.size(), 2u);
  EXPECT_FLOAT_EQ(with_blocks->blocks[0].right, 90.0f);
  EXPECT_EQ(with_blocks->blocks[1].type, layout::BlockType::kTable);
  EXPECT_EQ(with_blocks->blocks[1].table.cells[0].col_span, 2);
  EXPECT_EQ(with_blocks->blocks[1].Lines(), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(EncodePage(*with_blocks), EncodePage(page));
  // A block naming a line the page lacks, or a cell outside its table, is refused: writers index
  // lines by them.
  EXPECT_EQ(DecodePage(R"([0,1,1,false,[],[[0,[0,0,1,1],[[3]],0,false,[0,0,0,[0,0,0,0],[]]]]])")
                .status()
                .code(),
            StatusCode::kInternal);
  EXPECT_EQ(
      DecodePage(R"([0,1,1,false,[],[[3,[0,0,1,1],[],0,false,[1,1,0,[0,0,0,0],[[0,0,1,2,[]]]]]]])")
          .status()
          .code(),
      StatusCode::kInternal);
  // A grid beyond any page's table is refused before a writer would lay it out.
  std::string many = R"([0,1,1,false,[)";
  for (int i = 0; i < 200; ++i)
    many += std::string(i > 0 ? "," : "") + R"(["x",1,[0,0,1,0,1,1,0,1],[]])";
  EXPECT_OK(DecodePage(many + R"(],[[3,[0,0,1,1],[],0,false,[100,100,0,[0,0,0,0],[]]]]])"));
  EXPECT_EQ(DecodePage(many + R"(],[[3,[0,0,1,1],[],0,false,[200,200,0,[0,0,0,0],[]]]]])")
                .status()
                .code(),
            StatusCode::kInternal);
  // A page stored without blocks (five fields) still reads.
  EXPECT_OK(DecodePage(R"([0,1,1,false,[]])"));

  EXPECT_EQ(DecodePage("[1,2]").status().code(), StatusCode::kInternal);
  EXPECT_EQ(DecodePage("not json").status().code(), StatusCode::kInternal);
  // Numbers beyond a float or an int are refused, not converted (undefined behaviour).
  EXPECT_EQ(DecodePage(R"([0,1,1,false,[["x",1,[1e300,0,0,0,0,0,0,0],[]]]])").status().code(),
            StatusCode::kInternal);
  EXPECT_EQ(DecodePage(R"([1e30,1,1,false,[]])").status().code(), StatusCode::kInternal);
  EXPECT_EQ(DecodePage(R"([-1,1,1,false,[]])").status().code(), StatusCode::kInternal);
}

TEST(JobSpecCodecTest, CarriesEveryReadingOption) {
  SharedJobSpec spec;
  spec.model = "ppocrv5";
  spec.answer = {document::OutputFormat::kPdf, true, true, true};
  document::DocumentOptions& o = spec.options;
  o.ocr.use_cls = false;
  o.ocr.drop_score = 0.6f;
  o.ocr.read_words = true;
  o.ocr.det.limit_side_len = 1280;
  o.ocr.det.limit_type = pipeline::LimitType::kMin;
  o.ocr.text_normalization = false;
  o.ocr.rec.lexicon = false;
  o.ocr.cls.page_vote = false;
  o.ocr.det.stretch_contrast = false;
  o.force_ocr = true;
  o.page_range = "1-3";
  auto decoded = DecodeJobSpec(EncodeJobSpec(spec));
  ASSERT_OK(decoded);
  EXPECT_EQ(decoded->model, "ppocrv5");
  EXPECT_EQ(decoded->answer.format, document::OutputFormat::kPdf);
  EXPECT_TRUE(decoded->answer.paginate);
  EXPECT_TRUE(decoded->answer.list_words);
  EXPECT_TRUE(decoded->answer.pdfa);
  // Every option of the table, whatever it is, comes back as it was.
  for (const document::RequestOption& option : document::RequestOptions())
    EXPECT_EQ(option.get(decoded->options), option.get(o)) << option.name;
  EXPECT_EQ(decoded->options.ocr.drop_score, 0.6f);
}

TEST(JobSpecCodecTest, ReadsSpecsOfReplicasWithoutTheNewerOptions) {
  // What a replica stored before the detection options, word spaces, the page vote and the
  // lexicon: read as it read them (one pass at max, raw text, best paths), and the options it had
  // kept.
  auto old = DecodeJobSpec(
      R"({"model":"ppocrv4","format":"markdown","paginate":false,"cls":true,"drop_score":0.5,)"
      R"("word_boxes":true,"force_ocr":false,"page_range":"0-2"})");
  ASSERT_OK(old);
  EXPECT_EQ(old->options.ocr.det.limit_type, pipeline::LimitType::kMax);
  EXPECT_FALSE(old->options.ocr.text_normalization);
  EXPECT_FALSE(old->options.ocr.rec.lexicon);
  EXPECT_TRUE(old->options.ocr.read_words);
  EXPECT_EQ(old->options.page_range, "0-2");
  EXPECT_TRUE(old->options.ocr.cls.page_vote);
  EXPECT_EQ(old->options.ocr.det.limit_side_len, 960);
  EXPECT_TRUE(old->answer.list_words);  // words were listed whenever they were read
  EXPECT_FALSE(old->answer.pdfa);
  // pdfa was stored among the reading options before it was part of the answer, under the
  // same key.
  auto pdfa = DecodeJobSpec(R"({"model":"m","format":"pdf","paginate":false,"pdfa":true})");
  ASSERT_OK(pdfa);
  EXPECT_TRUE(pdfa->answer.pdfa);
  EXPECT_EQ(pdfa->answer.format, document::OutputFormat::kPdf);

  for (const char* bad :
       {"", "[]", "{}", R"({"model":"m","format":"docx","paginate":false})",
        R"({"model":"m","format":"json","paginate":false,"drop_score":"high"})",
        R"({"model":"m","format":"json","paginate":false,"drop_score":7})",
        R"({"model":"m","format":"json","paginate":false,"det_limit_type":"fast"})",
        R"({"model":"m","format":"json","paginate":false,"det_limit_side_len":1e9})",
        R"({"model":"m","format":"pdf","paginate":false,"pdfa":"yes"})"}) {
    EXPECT_EQ(DecodeJobSpec(bad).status().code(), StatusCode::kInternal) << bad;
  }
}

TEST(RedisPoolTest, FailsFastWhileDownAndRecoversByItself) {
  SKIP_WITHOUT_REDIS();
  RedisProcess redis;
  ASSERT_TRUE(redis.Start());
  RedisPool pool(EndpointOf(redis), 500ms, 300ms);
  auto pong = pool.Command({"PING"});
  ASSERT_OK(pong);
  EXPECT_EQ(pong->str, "PONG");
  EXPECT_TRUE(pool.healthy());

  redis.Stop();
  EXPECT_EQ(pool.Command({"PING"}).status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(pool.healthy());
  const auto refused = pool.Command({"PING"});
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(refused.status().message(), HasSubstr("127.0.0.1"));

  ASSERT_TRUE(redis.Start());  // the same port
  Status last = Status::Ok();
  for (int i = 0; i < 40; ++i) {
    last = pool.Command({"PING"}).status();
    if (last.ok())
      break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_OK(last);
  EXPECT_TRUE(pool.healthy());
}

TEST(RedisPoolTest, NeverShowsThePassword) {
  SKIP_WITHOUT_REDIS();
  RedisProcess redis({"--requirepass", "right-horse-battery"});
  ASSERT_TRUE(redis.Start());
  RedisEndpoint wrong = EndpointOf(redis);
  wrong.password = "wrong-staple-secret";
  const auto refused = RedisConnection::Connect(wrong, 500ms);
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(refused.status().message(), HasSubstr("refused the password"));
  EXPECT_THAT(refused.status().message(), Not(HasSubstr("wrong-staple-secret")));
  EXPECT_THAT(refused.status().message(), HasSubstr(":***@"));

  RedisEndpoint right = EndpointOf(redis);
  right.password = "right-horse-battery";
  right.db = 3;
  auto connection = RedisConnection::Connect(right, 500ms);
  ASSERT_OK(connection);
  EXPECT_OK((*connection)->Command({"SET", "k", "v"}));
}

class RedisJobsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveRedisServer())
      GTEST_SKIP() << kRedisServer << " is not installed (scripts/bootstrap installs it)";
    ASSERT_TRUE(redis_.Start());
  }

  // A store that is not started: no claim loop, so its jobs stay queued.
  std::unique_ptr<RedisJobs> Store(JobLimits limits) {
    RedisJobsConfig config;
    config.endpoint = EndpointOf(redis_);
    return std::make_unique<RedisJobs>(config, limits, PageWorkers{}, 1,
                                       std::vector<std::string>{"ppocrv4"},
                                       document::InputLimits{});
  }

  static SharedJobSpec Spec() {
    SharedJobSpec spec;
    spec.model = "ppocrv4";
    spec.answer.format = document::OutputFormat::kMarkdown;
    spec.options.page_range = "0-2";
    spec.options.ocr.read_words = true;
    spec.answer.list_words = true;
    return spec;
  }

  RedisProcess redis_;
};

TEST_F(RedisJobsTest, AdmitsFindsCancelsAndForgets) {
  auto store = Store({});
  auto id = store->Submit("%PDF-1.4 bytes", Spec(), 5, 3);
  ASSERT_OK(id);
  EXPECT_TRUE(IsJobId(*id));

  auto job = store->Find(*id);
  ASSERT_OK(job);
  EXPECT_EQ(job->snapshot.state, JobState::kQueued);
  EXPECT_EQ(job->snapshot.page_count, 5);
  EXPECT_EQ(job->snapshot.pages_total, 3);
  EXPECT_EQ(job->answer.format, document::OutputFormat::kMarkdown);
  EXPECT_TRUE(job->answer.list_words);

  // Another replica's view of the same Redis sees the same job.
  auto other = Store({});
  auto cancelled = other->Delete(*id);
  ASSERT_OK(cancelled);
  EXPECT_EQ(cancelled->snapshot.state, JobState::kCancelled);
  EXPECT_EQ(cancelled->snapshot.error.code(), StatusCode::kCancelled);
  EXPECT_THAT(cancelled->snapshot.error.message(), HasSubstr("DELETE"));
  EXPECT_TRUE(cancelled->snapshot.finished.has_value());

  auto seen = store->Find(*id);
  ASSERT_OK(seen);
  EXPECT_EQ(seen->snapshot.state, JobState::kCancelled);

  // The follower of a cancelled job gets its end at once.
  auto view = store->Follow(*id, 0);
  ASSERT_OK(view);
  const std::vector<JobEvent> events = (*view)->EventsSince(0);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, JobEvent::Kind::kEnd);
  EXPECT_EQ((*view)->Snapshot().state, JobState::kCancelled);

  // Deleting a finished job forgets it.
  ASSERT_OK(store->Delete(*id));
  EXPECT_EQ(store->Find(*id).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Delete(*id).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Find("0123456789abcdef0123456789abcdef").status().code(), StatusCode::kNotFound);
}

TEST_F(RedisJobsTest, CountsUnfinishedJobsAcrossReplicas) {
  JobLimits limits;
  limits.max_jobs = 2;
  auto a = Store(limits);
  auto b = Store(limits);
  auto first = a->Submit("x", Spec(), 1, 1);
  ASSERT_OK(first);
  ASSERT_OK(b->Submit("y", Spec(), 1, 1));
  const auto refused = b->Submit("z", Spec(), 1, 1);
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(), HasSubstr("--max-jobs"));
  ASSERT_OK(a->Delete(*first));  // cancelled: no longer unfinished
  EXPECT_OK(b->Submit("z", Spec(), 1, 1));
}

TEST_F(RedisJobsTest, FinishedJobsExpireAfterTheirTtl) {
  JobLimits limits;
  limits.ttl = std::chrono::seconds(1);
  auto store = Store(limits);
  auto id = store->Submit("x", Spec(), 1, 1);
  ASSERT_OK(id);
  ASSERT_OK(store->Delete(*id));
  ASSERT_OK(store->Find(*id));
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(store->Find(*id).status().code(), StatusCode::kNotFound);
}

TEST_F(RedisJobsTest, AnswersUnavailableWhileRedisIsDown) {
  auto store = Store({});
  auto id = store->Submit("x", Spec(), 1, 1);
  ASSERT_OK(id);
  redis_.Stop();
  const auto down = store->Find(*id);
  EXPECT_EQ(down.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(store->Health().code(), StatusCode::kUnavailable);
  EXPECT_THAT(store->Health().message(), HasSubstr("127.0.0.1"));
  EXPECT_EQ(store->Submit("x", Spec(), 1, 1).status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace ocr::jobs
