import HTTPTypes
import Hummingbird
import SNSPlatform

/// `GET /.well-known/jwks.json`: the public key(s) that verify access tokens, for other services and tools.
struct JWKSHandler: Sendable {
    let deps: AuthDependencies

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        var keys = [AccessTokenKeys.jwk(of: deps.signer.publicKey)]
        for key in deps.verifier.publicKeys where AccessTokenKeys.keyID(of: key) != deps.signer.keyID {
            keys.append(AccessTokenKeys.jwk(of: key))
        }
        return try .json(["keys": keys])
    }
}
