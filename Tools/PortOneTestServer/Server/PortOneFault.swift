// Faults a test arms on the ledger to exercise a caller's timeout and retry handling without real outages.

/// Which endpoint a fault affects.
package enum PortOneFaultTarget: String, Codable, Sendable, CaseIterable {
    /// `GET /payments/{imp_uid}`
    case lookup
    /// `POST /payments/cancel`
    case cancel
    /// `POST /users/getToken`
    case token
}

/// What happens to an affected call.
package enum PortOneFaultKind: Sendable, Equatable {
    /// Wait this long, then answer normally.
    case slow(delayMilliseconds: Int)
    /// Answer with this HTTP status and `{"code":-1,"message":"Internal Server Error","response":null}`
    /// (the message is the status's reason phrase when it isn't 500). Nothing is processed.
    case error(status: Int)
    /// Wait this long (0 = at once), then close the TCP connection without writing any answer.
    /// Nothing is processed.
    case drop(afterMilliseconds: Int)
}

/// A fault armed on the ledger.
///
/// Scope: for `.lookup` and `.cancel`, `impUid` (nil = every imp_uid); for `.token`, `impKey` (nil = every key).
/// A cancel that names only a `merchant_uid` is matched through the payment it resolves to.
/// `times` is how many upcoming matching calls are affected; nil = every one until `clearFaults()`.
/// When several faults match a call, the one armed first applies (and only its `times` is used up).
package struct PortOneFault: Sendable, Equatable {
    package var target: PortOneFaultTarget
    package var impUid: String?
    package var impKey: String?
    package var kind: PortOneFaultKind
    package var times: Int?

    package init(
        target: PortOneFaultTarget,
        impUid: String? = nil,
        impKey: String? = nil,
        kind: PortOneFaultKind,
        times: Int? = nil
    ) {
        self.target = target
        self.impUid = impUid
        self.impKey = impKey
        self.kind = kind
        self.times = times
    }

    /// A fault on `GET /payments/{impUid}`.
    package static func lookup(_ impUid: String?, _ kind: PortOneFaultKind, times: Int? = nil) -> Self {
        .init(target: .lookup, impUid: impUid, kind: kind, times: times)
    }

    /// A fault on `POST /payments/cancel` for `impUid`.
    package static func cancel(_ impUid: String?, _ kind: PortOneFaultKind, times: Int? = nil) -> Self {
        .init(target: .cancel, impUid: impUid, kind: kind, times: times)
    }

    /// A fault on `POST /users/getToken` for `impKey`.
    package static func token(_ impKey: String?, _ kind: PortOneFaultKind, times: Int? = nil) -> Self {
        .init(target: .token, impKey: impKey, kind: kind, times: times)
    }

    func matches(target: PortOneFaultTarget, impUid: String?, impKey: String?) -> Bool {
        guard target == self.target else { return false }
        switch target {
        case .lookup, .cancel: return self.impUid == nil || self.impUid == impUid
        case .token: return self.impKey == nil || self.impKey == impKey
        }
    }
}
