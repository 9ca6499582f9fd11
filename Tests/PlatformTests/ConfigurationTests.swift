import Foundation
import Testing

@testable import SNSPlatform

@Suite("Configuration from the environment")
struct ConfigurationTests {
    let base: [String: String] = [
        "SNS_DATABASE_URL": "postgres://sns:secret@127.0.0.1:5432/sns",
        "SNS_KAFKA_BROKERS": "127.0.0.1:9092",
        "SNS_API_KEY": "key",
        "SNS_JWT_PUBLIC_KEY": "-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----",
    ]

    @Test func validEnvironmentParses() throws {
        let configuration = try PlatformConfiguration(
            serviceName: "auth", defaultPort: 8101, environment: Environment(base))
        #expect(configuration.httpPort == 8101)
        #expect(configuration.database.host == "127.0.0.1")
        #expect(configuration.database.password == "secret")
        #expect(configuration.database.database == "sns")
        #expect(configuration.databasePoolPerEventLoop, "a pool per event loop unless told otherwise")
        var shared = base
        shared["SNS_DATABASE_POOLS"] = "shared"
        #expect(
            try !PlatformConfiguration(serviceName: "auth", defaultPort: 8101, environment: Environment(shared))
                .databasePoolPerEventLoop)
    }

    /// libpq's `host=/dir` (decision 0037): PostgreSQL's Unix-domain socket in that directory, named by the port; the
    /// URL's own host may be left out. A `host` that is a name is a TCP host, as in libpq.
    @Test func aHostDirectoryMeansTheUnixDomainSocket() throws {
        let withHost = try DatabaseConfiguration(url: "postgres://sns:sns@127.0.0.1:54320/sns?host=/srv/pg/run")
        #expect(withHost.socketPath == "/srv/pg/run/.s.PGSQL.54320")
        #expect(withHost.endpointDescription == "/srv/pg/run/.s.PGSQL.54320")
        #expect(withHost.clientConfiguration.unixSocketPath == "/srv/pg/run/.s.PGSQL.54320")
        #expect(withHost.clientConfiguration.host == nil)
        #expect(try withHost.connectionConfiguration().unixSocketPath == "/srv/pg/run/.s.PGSQL.54320")
        let bare = try DatabaseConfiguration(url: "postgresql://sns:s%40cret@/sns?host=/var/run/postgresql/")
        #expect(bare.socketPath == "/var/run/postgresql/.s.PGSQL.5432")
        #expect(bare.password == "s@cret")
        #expect(bare.database == "sns")
        let named = try DatabaseConfiguration(url: "postgres://sns:sns@ignored:6543/sns?host=db.internal")
        #expect(named.socketPath == nil)
        #expect(named.clientConfiguration.host == "db.internal")
        #expect(named.clientConfiguration.port == 6543)
        #expect(named.endpointDescription == "db.internal:6543")
        let tcp = try DatabaseConfiguration(url: "postgres://sns:sns@127.0.0.1:5432/sns")
        #expect(tcp.socketPath == nil)
        #expect(tcp.clientConfiguration.unixSocketPath == nil)
        #expect {
            try DatabaseConfiguration(url: "postgres://sns:sns@/sns?host=/run/pg&sslmode=require")
        } throws: { error in
            (error as? ConfigurationError)?.variable == "SNS_DATABASE_URL"
        }
    }

    /// `SNS_ANNOUNCE_HOST` (decision 0050): an IP address, `auto`, or empty for announcements by `NOTIFY`.
    @Test func theAnnounceHostIsAnIPAddressOrAuto() throws {
        for (value, valid) in [("", true), ("auto", true), ("10.0.0.7", true), ("::1", true), ("host.example", false)] {
            var env = base
            env["SNS_ANNOUNCE_HOST"] = value
            let parsed = Result {
                try PlatformConfiguration(serviceName: "posts", defaultPort: 1, environment: Environment(env))
            }
            switch parsed {
            case .success(let configuration):
                #expect(valid, "\(value)")
                #expect(configuration.announceHost == (value.isEmpty ? nil : value))
            case .failure(let error):
                #expect(!valid, "\(value)")
                #expect((error as? ConfigurationError)?.variable == "SNS_ANNOUNCE_HOST")
            }
        }
    }

    /// `SNS_OUTBOX_GATHER_MS` (decision 0035): 3 ms unless set; 0 turns the pause off.
    @Test func outboxGatherDefaultsToThreeMillisecondsAndZeroTurnsItOff() throws {
        #expect(
            try PlatformConfiguration(serviceName: "posts", defaultPort: 1, environment: Environment(base)).outboxGather
                == .milliseconds(3))
        for (value, expected) in [("0", Duration.zero), ("1000", .milliseconds(1000))] {
            var env = base
            env["SNS_OUTBOX_GATHER_MS"] = value
            #expect(
                try PlatformConfiguration(serviceName: "posts", defaultPort: 1, environment: Environment(env))
                    .outboxGather == expected)
        }
    }

    @Test(arguments: ["SNS_DATABASE_URL", "SNS_KAFKA_BROKERS", "SNS_API_KEY", "SNS_JWT_PUBLIC_KEY"])
    func missingRequiredVariableIsNamed(variable: String) {
        var env = base
        env[variable] = nil
        #expect {
            try PlatformConfiguration(serviceName: "auth", defaultPort: 1, environment: Environment(env))
        } throws: { error in
            (error as? ConfigurationError)?.variable == variable
        }
    }

    @Test(arguments: [
        ("SNS_HTTP_PORT", "http"), ("SNS_HTTP_PORT", "70000"), ("SNS_DATABASE_URL", "mysql://x@y/z"),
        ("SNS_DATABASE_URL", "postgres://127.0.0.1/db"), ("SNS_LOG_LEVEL", "loud"), ("SNS_KAFKA_PROPERTIES", "novalue"),
        ("SNS_DATABASE_POOLS", "per-loop"), ("SNS_OUTBOX_GATHER_MS", "-1"), ("SNS_OUTBOX_GATHER_MS", "1001"),
        ("SNS_OUTBOX_GATHER_MS", "3ms"),
    ])
    func badValueIsNamedAndNotEchoedForSecrets(variable: String, value: String) {
        var env = base
        env[variable] = value
        #expect {
            try PlatformConfiguration(serviceName: "auth", defaultPort: 1, environment: Environment(env))
        } throws: { error in
            (error as? ConfigurationError)?.variable == variable
        }
    }

    @Test func eventLoopCountIsUnsetOrOneTo256() throws {
        #expect(try ConcurrencyExecutor.eventLoopCount(from: [:]) == nil)
        #expect(try ConcurrencyExecutor.eventLoopCount(from: ["SNS_EVENT_LOOPS": ""]) == nil)
        #expect(try ConcurrencyExecutor.eventLoopCount(from: ["SNS_EVENT_LOOPS": "1"]) == 1)
        #expect(try ConcurrencyExecutor.eventLoopCount(from: ["SNS_EVENT_LOOPS": "256"]) == 256)
        for bad in ["0", "-1", "257", "two", "1.5", " 2"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ConcurrencyExecutor.eventLoopCount(from: ["SNS_EVENT_LOOPS": bad])
            }
        }
    }

    @Test func secretFromFileAndNotBoth() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sns-secret-\(UUID())").path
        try "from-file\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var env = base
        env["SNS_API_KEY"] = nil
        env["SNS_API_KEY_FILE"] = path
        #expect(
            try PlatformConfiguration(serviceName: "a", defaultPort: 1, environment: Environment(env)).apiKey
                == "from-file")
        env["SNS_API_KEY"] = "inline"
        #expect(throws: ConfigurationError.self) {
            try PlatformConfiguration(serviceName: "a", defaultPort: 1, environment: Environment(env))
        }
    }

    @Test func objectIdsLookLikeTheOriginalServers() {
        let ids = (0..<100).map { _ in ObjectID.generate() }
        #expect(ids.allSatisfy(ObjectID.isValid))
        #expect(Set(ids).count == 100)
    }

    @Test func datesUseMillisecondsAndZ() throws {
        let date = Date(timeIntervalSince1970: 1_702_144_377.551)
        #expect(APIDateFormat.string(from: date) == "2023-12-09T17:52:57.551Z")
        let parsed = try #require(APIDateFormat.date(from: "2023-12-09T17:52:57.551Z"))
        #expect(abs(parsed.timeIntervalSince(date)) < 0.0005)
    }

    /// A date read back from PostgreSQL's microseconds is often a hair below its millisecond; it must still print
    /// as that millisecond (formatting the `Date` itself truncates: .456 printed as .455, .001 as .000).
    @Test(arguments: [(456_000, ".456Z"), (1_000, ".001Z"), (999_000, ".999Z"), (122_999, ".123Z"), (0, ".000Z")])
    func datesPrintTheirNearestMillisecond(microseconds: Int, suffix: String) {
        let epoch2000 = 946_684_800.0
        let date = Date(timeIntervalSince1970: epoch2000 + Double(817_000_000 * 1_000_000 + microseconds) / 1_000_000)
        #expect(APIDateFormat.string(from: date) == "2025-11-21T00:26:40" + suffix)
        #expect(APIDateFormat.string(from: Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.750Z")
    }
}
