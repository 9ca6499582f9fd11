import Foundation
import Hummingbird
import SNSPlatform

/// Profiles (API conventions §2.2 #6–#8, §3.4): `GET /v1/users/me/profile` (with email, phoneNum, birthDay),
/// `GET /v1/users/{user_id}/profile` (without them; 410 for unknown or withdrawn users),
/// `PUT /v1/users/me/profile` (multipart) and `POST /v1/users/me/nick/random` (ours).
/// In `format` `.g0` the same handlers serve G0's `GET|PUT /profile/me` and `GET /profile/{user_id}` (contract
/// §4; the edit's multipart fields are the same in both generations) with G0 profiles.
struct ProfileHandlers: Sendable {
    let deps: SocialDependencies
    var format: WireFormat = .g1

    func me(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try await answer(user.userId, includePrivate: true, context: context)
    }

    func other(_ request: Request, context: APIRequestContext) async throws -> Response {
        _ = try context.requireUser()
        return try await answer(try context.parameters.require("user_id"), includePrivate: false, context: context)
    }

    /// Multipart `nick`, `phoneNum`, `birthDay`, file `profile` — each optional (or the text fields as JSON, as G2
    /// apps send them); an empty text field clears `phoneNum`/`birthDay`. Nick rules (402 whitespace, 409 taken) and image rules (400) are the owners'.
    func update(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let form = try await ProfileForm.read(request, maxImageBytes: deps.profiles.maxImageBytes, context: context)
        var update = InternalClient.ProfileUpdate()
        update.nick = form.nick
        update.phoneNum = form.phoneNum.map { $0.isEmpty ? .clear : .set($0) }
        update.birthDay = form.birthDay.map { $0.isEmpty ? .clear : .set($0) }
        try await deps.profiles.edit(
            update, image: form.image, token: try token(request), trace: context.trace, logger: context.logger)
        return try await answer(user.userId, includePrivate: true, context: context)
    }

    /// A fresh random nickname (Mobbie-style anonymous apps): human-readable, no whitespace, unique — a
    /// collision (409 from auth) just draws again, a few times.
    func randomNick(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let token = try token(request)
        var generator = SystemRandomNumberGenerator()
        for attempt in 1...RandomNick.attempts {
            var update = InternalClient.ProfileUpdate()
            update.nick = RandomNick.make(using: &generator)
            do {
                try await deps.profiles.edit(
                    update, image: nil, token: token, trace: context.trace, logger: context.logger)
                return try await answer(user.userId, includePrivate: true, context: context)
            } catch let error as APIError where error.status.code == 409 && attempt < RandomNick.attempts {
                continue
            }
        }
        throw APIError.unavailable("닉네임을 만들지 못했습니다. 다시 시도해주세요. (could not find a free nickname, try again)")
    }

    private func answer(_ userId: String, includePrivate: Bool, context: APIRequestContext) async throws -> Response {
        guard
            let profile = try await deps.profiles.profile(
                of: userId, includePrivate: includePrivate, logger: context.logger)
        else {
            throw APIError.gone("유저를 찾을 수 없습니다. (user not found)")
        }
        switch context.wireFormat(format) {
        case .g1: return try .json(profile)
        case .g2: return try .json(profile.g2)
        case .g0: return try .json(G0Profile(profile))
        }
    }

    private func token(_ request: Request) throws -> String {
        guard let token = AuthenticationMiddleware.token(from: request) else { throw APIError.unauthorized() }
        return token
    }
}
