import Foundation
import Testing

/// docker-compose.yml refers only to things that exist, starts things in a sound order, and can scale.
@Suite("docker-compose.yml structure")
struct ComposeStructureTests {
    let compose: ComposeFile

    init() throws { compose = try ComposeFile.load() }

    @Test func parsesWithTheExpectedServices() {
        let expected = Set([
            "postgres", "kafka", "kafka-init", "gateway", "portone", "idp", "admin",
            "prometheus", "grafana", "kafka-exporter",
        ]).union(ProgramCatalog.services)
        #expect(Set(compose.services.keys) == expected)
    }

    @Test func dependenciesNameExistingServicesWithSoundConditions() throws {
        for service in compose.services.values {
            for (target, condition) in service.dependsOn {
                let dependency = try #require(compose[target], "\(service.name) depends on unknown service \(target)")
                switch condition {
                case "service_healthy":
                    let hasCheck =
                        !dependency.healthcheckDisabled
                        && (dependency.healthcheckTest != nil || dependency.usesProjectImage)
                    #expect(hasCheck, "\(service.name) waits for \(target) to be healthy, which has no healthcheck")
                case "service_completed_successfully":
                    #expect(dependency.isOneShot, "\(service.name) waits for \(target) to finish, but it restarts")
                default:
                    Issue.record(
                        "\(service.name) → \(target): use service_healthy or service_completed_successfully, not \(condition)"
                    )
                }
                // A service that always runs must not need one that only a profile starts.
                #expect(
                    service.hasProfile || !dependency.hasProfile,
                    "\(service.name) depends on \(target), which only a profile starts")
            }
        }
    }

    @Test func everyServiceOfOurImageWaitsForTheDatabaseAndTheTopics() throws {
        for name in ProgramCatalog.services + ["admin"] {
            let service = try #require(compose[name])
            #expect(service.dependsOn["postgres"] == "service_healthy", "\(name)")
            #expect(service.dependsOn["kafka-init"] == "service_completed_successfully", "\(name)")
        }
        #expect(compose["kafka-init"]?.dependsOn["kafka"] == "service_healthy")
        let gateway = try #require(compose["gateway"])
        #expect(Set(gateway.dependsOn.keys) == Set(ProgramCatalog.services))
        #expect(gateway.dependsOn.values.allSatisfy { $0 == "service_healthy" })
    }

    @Test func imagesAreBuiltHereOrPinned() throws {
        for service in compose.services.values {
            let image = try #require(service.image, "\(service.name) names no image")
            if service.usesProjectImage {
                #expect(service.buildContext == ".", "\(service.name) builds from the repository root")
                #expect(Repository.exists(ComposeFile.projectDockerfile))
            } else {
                #expect(service.dockerfile == nil, "\(service.name) builds from \(service.dockerfile ?? "")")
                let tag = image.split(separator: ":").dropFirst().last.map(String.init)
                #expect(
                    tag != nil && tag != "latest" && !image.contains("$"), "\(service.name): pin \(image) to a version")
            }
        }
        // One image for every executable: the same name everywhere.
        let ours = Set(compose.services.values.filter(\.usesProjectImage).compactMap(\.image))
        #expect(ours.count == 1, "\(ours)")
        for name in ProgramCatalog.services + ["admin", "portone"] {
            #expect(compose[name]?.usesProjectImage == true, "\(name) runs our image")
        }
    }

    @Test func longRunningServicesRestartCheckHealthAndHaveLimits() {
        for service in compose.services.values {
            #expect(service.memoryLimit != nil, "\(service.name) has no memory limit (deploy.resources.limits)")
            if service.isOneShot { continue }
            #expect(
                ["unless-stopped", "always"].contains(service.restart ?? ""),
                "\(service.name) restart policy \(service.restart ?? "none")")
            let checked = !service.healthcheckDisabled && (service.healthcheckTest != nil || service.usesProjectImage)
            #expect(checked, "\(service.name) has no healthcheck")
        }
        #expect(compose["kafka-init"]?.isOneShot == true)
        #expect(compose["admin"]?.isOneShot == true)
    }

    @Test func statelessServicesCanBeScaled() throws {
        for service in compose.services.values {
            #expect(service.containerName == nil, "\(service.name): container_name prevents --scale")
        }
        for name in ProgramCatalog.services {
            let service = try #require(compose[name])
            #expect(service.ports.isEmpty, "\(name) publishes a port: replicas would collide; the gateway is the entry")
            #expect(!service.hasProfile)
            #expect(service.healthcheckTest == ["CMD", "sns-probe", "/ready"], "\(name)")
        }
    }

    @Test func onlyTheGatewayPublishesAPortOptionalProfilesOnLoopback() {
        for service in compose.services.values where !service.ports.isEmpty {
            if service.name == "gateway" {
                #expect(service.ports.count == 1)
                #expect(service.ports.first?.hasSuffix(":8080") == true, "\(service.ports)")
            } else {
                #expect(service.hasProfile, "\(service.name) publishes \(service.ports) outside a profile")
                for port in service.ports {
                    #expect(port.hasPrefix("127.0.0.1:"), "\(service.name) publishes \(port) beyond this host")
                }
            }
        }
        #expect(compose["portone"]?.profiles == ["sandbox"])
        #expect(compose["idp"]?.profiles == ["sandbox"])
        #expect(compose["admin"]?.profiles == ["tools"])
        for name in ["prometheus", "grafana", "kafka-exporter"] {
            #expect(compose[name]?.profiles == ["monitoring"], "\(name)")
        }
    }

    @Test func volumesAndMountedFilesExist() {
        for service in compose.services.values {
            for volume in service.volumes {
                let source = String(volume.split(separator: ":").first ?? "")
                if source.hasPrefix("./") {
                    #expect(Repository.exists(String(source.dropFirst(2))), "\(service.name) mounts missing \(source)")
                } else {
                    #expect(compose.volumes.contains(source), "\(service.name) uses undeclared volume \(source)")
                }
            }
        }
        // Scripts run inside the containers keep their executable bit.
        for script in [
            "deploy/postgres/10-sns-roles-and-schemas.sh", "deploy/kafka/create-topics.sh",
            "deploy/nginx/compose/40-sns-routes.sh", "deploy/docker/sns-probe", "deploy/compose/generate-secrets.sh",
        ] {
            #expect(Repository.isExecutable(script), "\(script) is not executable")
        }
    }

    @Test func secretsAreFilesThatGenerateSecretsWritesAndServicesUse() throws {
        let generator = try Repository.text("deploy/compose/generate-secrets.sh")
        for (name, file) in compose.secrets {
            #expect(
                file.hasPrefix("${SNS_SECRETS_DIR:-./secrets}/"),
                "secret \(name) lives outside the secrets folder: \(file)")
            let fileName = String(file.split(separator: "/").last ?? "")
            #expect(generator.contains(fileName), "generate-secrets.sh does not write \(fileName)")
        }
        for service in compose.services.values {
            let text = (service.entrypoint + service.command + Array(service.environment.values)).joined(separator: " ")
            for secret in service.secrets {
                #expect(compose.secrets[secret] != nil, "\(service.name) uses undeclared secret \(secret)")
                #expect(text.contains("/run/secrets/\(secret)"), "\(service.name) mounts \(secret) but never reads it")
            }
        }
    }

    @Test func everyInterpolatedVariableIsDocumentedInEnvExample() throws {
        let example = try Repository.text(".env.example")
        let documented = Set(Pattern.captures(#"(?m)^#?\s*([A-Z_][A-Z0-9_]*)="#, in: example))
        let missing = compose.interpolatedVariables.subtracting(documented)
        #expect(missing.isEmpty, ".env.example lacks \(missing.sorted())")
        // …and .env.example documents nothing compose does not use.
        let unused = documented.subtracting(compose.interpolatedVariables)
        #expect(unused.isEmpty, ".env.example lists variables docker-compose.yml never uses: \(unused.sorted())")
    }

    @Test func secretsAndLocalStateStayOutOfGitAndImages() throws {
        let ignore = try Repository.text(".gitignore")
        #expect(ignore.contains(".env") && ignore.contains("/secrets/"))
        let dockerIgnore = try Repository.text(".dockerignore").split(separator: "\n").map(String.init)
        for entry in [".env", "secrets", ".build", ".local", ".git"] {
            #expect(dockerIgnore.contains(entry), ".dockerignore lacks \(entry)")
        }
    }
}
