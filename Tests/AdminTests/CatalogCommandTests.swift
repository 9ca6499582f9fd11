import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// `./sns` starts the services that the built `sns-admin catalog --ports` lists: that output is the catalog.
@Suite("sns-admin catalog")
struct CatalogCommandTests {
    @Test func portsListEveryServiceOfTheCatalogInStartOrder() throws {
        let binary = URL(fileURLWithPath: try TestEnvironment.binaryDirectory()).appendingPathComponent("sns-admin")
            .path
        let child = try ChildProcess.spawn(
            binary, arguments: ["catalog", "--ports"], environment: ["PATH": "/usr/bin:/bin"], standardOutput: .pipe)
        let output = String(decoding: child.standardOutput?.readAllRetryingInterrupts() ?? Data(), as: UTF8.self)
        #expect(child.waitUntilExit() == .exited(0))
        #expect(
            output.split(separator: "\n").map(String.init)
                == SystemCatalog.services.map { "\($0.name):\($0.localPortOffset)" })
    }
}
