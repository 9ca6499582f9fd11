import Foundation
import Testing

/// The local stack's scripts never wait without bound on a process that does not answer.
@Suite("Local stack scripts")
struct LocalStackScriptTests {
    @Test func everyCurlHasATimeout() throws {
        for path in ["deploy/local/lib.sh", "deploy/local/sns.sh", "deploy/local/schemathesis.sh"] {
            for (number, line) in try Repository.text(path).split(separator: "\n").enumerated() {
                let code = line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
                guard code.range(of: #"(^|[\s$(])curl\s+-"#, options: .regularExpression) != nil else { continue }
                #expect(code.contains("--max-time"), "\(path):\(number + 1) calls curl without --max-time")
            }
        }
    }
}
