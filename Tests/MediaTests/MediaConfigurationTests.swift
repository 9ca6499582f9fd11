import Foundation
import MediaService
import SNSPlatform
import Testing

@Suite("Media configuration from the environment")
struct MediaConfigurationTests {
    let base: [String: String] = [
        "SNS_DATABASE_URL": "postgres://sns:secret@127.0.0.1:5432/sns",
        "SNS_KAFKA_BROKERS": "127.0.0.1:9092",
        "SNS_API_KEY": "key",
        "SNS_JWT_PUBLIC_KEY": "-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----",
        "SNS_MEDIA_ROOT": "/var/lib/sns/media",
        "SNS_MEDIA_SIGNING_KEY": "0123456789abcdef0123456789abcdef",
    ]

    @Test func defaults() throws {
        let configuration = try MediaConfiguration(environment: Environment(base))
        #expect(configuration.platform.serviceName == "media")
        #expect(configuration.platform.httpPort == 8103)
        #expect(configuration.root == "/var/lib/sns/media")
        #expect(configuration.maxFileBytes == 5_242_880)
        #expect(configuration.maxVideoBytes == 10_485_760, "WeeMo's own bound for videos (decision 0046)")
        #expect(configuration.maxFiles == 5)
        #expect(configuration.gcGrace == .seconds(86_400))
        #expect(configuration.gcInterval == .seconds(600))
        #expect(configuration.schema == "media")
        // Decision 0033: the references consumer's events gather on the broker for up to 40 ms.
        #expect(configuration.eventGather == .milliseconds(40))
        #expect(
            configuration.referencesConsumerProperties == ["fetch.wait.max.ms": "40", "fetch.min.bytes": "1048576"])
    }

    @Test func settings() throws {
        var env = base
        env["SNS_MEDIA_MAX_FILE_BYTES"] = "1000"
        env["SNS_MEDIA_MAX_FILES"] = "2"
        env["SNS_MEDIA_MAX_VIDEO_BYTES"] = "3000"
        env["SNS_MEDIA_GC_GRACE"] = "0"
        env["SNS_MEDIA_GC_INTERVAL"] = "30"
        let configuration = try MediaConfiguration(environment: Environment(env))
        #expect(configuration.uploadLimits.maxFileBytes == 1000)
        #expect(configuration.uploadLimits.maxFiles == 2)
        #expect(configuration.uploadLimits.maxVideoBytes == 3000)
        #expect(configuration.uploadLimits.maxBodyBytes >= 2 * 3000)
        #expect(configuration.gcGrace == .zero)
        #expect(configuration.gcInterval == .seconds(30))
        env["SNS_MEDIA_EVENT_GATHER_MS"] = "0"
        #expect(try MediaConfiguration(environment: Environment(env)).referencesConsumerProperties.isEmpty)
        env["SNS_MEDIA_EVENT_GATHER_MS"] = "250"
        #expect(
            try MediaConfiguration(environment: Environment(env)).referencesConsumerProperties["fetch.wait.max.ms"]
                == "250")
    }

    @Test(arguments: ["SNS_MEDIA_ROOT", "SNS_MEDIA_SIGNING_KEY"])
    func missingRequiredVariableIsNamed(variable: String) {
        var env = base
        env[variable] = nil
        #expect { try MediaConfiguration(environment: Environment(env)) } throws: { error in
            (error as? ConfigurationError)?.variable == variable
        }
    }

    @Test(arguments: [
        ("SNS_MEDIA_SIGNING_KEY", "too-short"), ("SNS_MEDIA_MAX_FILE_BYTES", "5MB"), ("SNS_MEDIA_MAX_FILE_BYTES", "0"),
        ("SNS_MEDIA_MAX_FILES", "-1"), ("SNS_MEDIA_GC_GRACE", "a day"), ("SNS_MEDIA_GC_INTERVAL", "0"),
        ("SNS_MEDIA_EVENT_GATHER_MS", "-1"), ("SNS_MEDIA_EVENT_GATHER_MS", "5000"),
    ])
    func badValueIsNamed(variable: String, value: String) {
        var env = base
        env[variable] = value
        #expect { try MediaConfiguration(environment: Environment(env)) } throws: { error in
            (error as? ConfigurationError)?.variable == variable
        }
    }

    @Test func signingKeyFromFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sns-media-key-\(UUID())").path
        try "abcdefghijklmnopqrstuvwxyz0123456789\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var env = base
        env["SNS_MEDIA_SIGNING_KEY"] = nil
        env["SNS_MEDIA_SIGNING_KEY_FILE"] = path
        #expect(
            try MediaConfiguration(environment: Environment(env)).signingKey == "abcdefghijklmnopqrstuvwxyz0123456789")
    }

    /// An unusable root stops the start-up with a configuration error naming the variable (exit 78).
    @Test func unusableRootIsAConfigurationError() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sns-media-file-\(UUID())").path
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        defer { try? FileManager.default.removeItem(atPath: file) }
        var env = base
        env["SNS_MEDIA_ROOT"] = file + "/below-a-file"
        let configuration = try MediaConfiguration(environment: Environment(env))
        await #expect {
            _ = try await buildApplication(configuration: configuration, logger: .init(label: "test"))
        } throws: { error in
            (error as? ConfigurationError)?.variable == "SNS_MEDIA_ROOT"
        }
    }
}
