import Foundation
import Testing

/// deploy/Dockerfile builds what CI builds, the way CI builds it, and ships what compose runs.
@Suite("deploy/Dockerfile against CI and compose")
struct DockerfileTests {
    let dockerfile: String
    let ci: String

    init() throws {
        dockerfile = try Repository.text(ComposeFile.projectDockerfile)
        ci = try Repository.text(".ci/run")
    }

    @Test func buildStageRunsCIsReleaseBuildLoop() throws {
        let ciLoops = BuildLoop.all(in: ci)
        let imageLoops = BuildLoop.all(in: dockerfile)
        try #require(ciLoops.count == 1, ".ci/run: \(ciLoops)")
        try #require(imageLoops.count == 1, "deploy/Dockerfile: \(imageLoops)")
        #expect(imageLoops[0] == ciLoops[0], "Dockerfile: \(imageLoops[0])\nCI:         \(ciLoops[0])")
        #expect(ciLoops[0].command == #"swift build -c release --product "$product""#)
    }

    @Test func ciReleaseBuildsEveryExecutableProduct() throws {
        let products = try ProgramCatalog.executableProducts()
        #expect(Set(products) == Set(ProgramCatalog.sources.keys), "ProgramCatalog.sources is out of date: \(products)")
        let built = try BuildLoop.all(in: ci).first?.products() ?? []
        #expect(Set(built) == Set(products), "CI builds \(built); Package.swift has \(products)")
        #expect(built.count == Set(built).count)
    }

    /// Every executable runs in some compose service, or a documented reason says why not.
    @Test func everyExecutableIsDeployedOrExplained() throws {
        let compose = try ComposeFile.load()
        let deployed = Set(compose.services.values.compactMap { compose.program(of: $0) })
        let decision = try Repository.text("docs/decisions/0009-docker-compose-deployment.md")
        for product in try ProgramCatalog.executableProducts() {
            if let reason = ProgramCatalog.notDeployed[product] {
                #expect(!deployed.contains(product), "\(product) is deployed although listed as not (\(reason))")
                #expect(decision.contains(product), "decision 0009 does not explain why \(product) is not deployed")
            } else {
                #expect(deployed.contains(product), "no compose service runs \(product)")
            }
        }
    }

    @Test func runtimeStageCarriesEveryDeployedProgram() throws {
        let compose = try ComposeFile.load()
        // `for program in <list>; do case "$program" in <not deployed>) ;; *) cp …`
        let loop = try #require(
            Pattern.matches(#"for program in (.+?); do case "\$program" in ([^)]+)\) ;; \*\) cp"#, in: dockerfile).first
        )
        let skipped = try #require(loop[1]).split(separator: "|").map(String.init)
        #expect(Set(skipped) == Set(ProgramCatalog.notDeployed.keys), "the image leaves out \(skipped)")
        let copied = try BuildLoop.expand(try #require(loop[0])).filter { !skipped.contains($0) }
        let built = try BuildLoop.all(in: dockerfile).first?.products() ?? []
        for service in compose.services.values {
            guard let program = compose.program(of: service) else { continue }
            #expect(copied.contains(program), "the image lacks \(program), which \(service.name) runs")
        }
        for program in copied {
            #expect(built.contains(program), "the image copies \(program), which the build stage does not build")
        }
    }

    @Test func runtimeIsSlimNonRootAndChecksItsHealth() throws {
        let stages = dockerfile.components(separatedBy: "\nFROM ")
        try #require(stages.count == 3, "expected a build and a runtime stage")
        let build = stages[1], runtime = stages[2]
        #expect(build.hasPrefix("${SWIFT_IMAGE} AS build"))
        #expect(dockerfile.contains("ARG SWIFT_IMAGE=swift:6."), "the build stage uses the Swift 6 toolchain image")
        #expect(installedPackages(build) == ["librdkafka-dev", "pkg-config"])
        #expect(
            installedPackages(runtime) == ["librdkafka1", "ca-certificates"],
            "the runtime holds only librdkafka and CA certificates")
        let user = try #require(Pattern.captures(#"(?m)^USER (\S+)"#, in: runtime).last)
        #expect(!user.hasPrefix("root") && !user.hasPrefix("0"), "runs as \(user)")
        #expect(runtime.contains("HEALTHCHECK") && runtime.contains(#"CMD ["sns-probe", "/ready"]"#))
        #expect(runtime.contains("COPY deploy/docker/sns-probe /usr/local/bin/sns-probe"))
        #expect(!runtime.contains("secrets") && !runtime.contains(".env"), "nothing secret is copied into the image")
    }

    @Test func copiedSourcesExist() {
        for source in Pattern.captures(#"(?m)^COPY (?!--from)(\S+)"#, in: dockerfile) {
            #expect(Repository.exists(source), "the Dockerfile copies missing \(source)")
        }
    }

    /// Packages of the stage's `apt-get install` line.
    private func installedPackages(_ stage: String) -> [String] {
        guard let line = Pattern.captures(#"apt-get install ([^&\n]+)"#, in: stage).first else { return [] }
        return line.split(separator: " ").map(String.init).filter { !$0.hasPrefix("-") && $0 != "\\" }
    }
}
