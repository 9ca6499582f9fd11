// iamport's JSON spelling of payments and cancels: snake_case keys, `null` (never a missing key) for absent values.

extension PortOnePayment: Codable {
    enum CodingKeys: String, CodingKey {
        case impUid = "imp_uid"
        case merchantUid = "merchant_uid"
        case amount
        case cancelAmount = "cancel_amount"
        case currency, status, name
        case payMethod = "pay_method"
        case pgProvider = "pg_provider"
        case pgTid = "pg_tid"
        case buyerEmail = "buyer_email"
        case buyerName = "buyer_name"
        case customData = "custom_data"
        case paidAt = "paid_at"
        case cancelledAt = "cancelled_at"
        case failedAt = "failed_at"
        case startedAt = "started_at"
        case cancelReason = "cancel_reason"
        case cancelHistory = "cancel_history"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(impUid, forKey: .impUid)
        try c.encode(merchantUid, forKey: .merchantUid)
        try c.encode(amount, forKey: .amount)
        try c.encode(cancelAmount, forKey: .cancelAmount)
        try c.encode(currency, forKey: .currency)
        try c.encode(status, forKey: .status)
        try c.encode(name, forKey: .name)
        try c.encode(payMethod, forKey: .payMethod)
        try c.encode(pgProvider, forKey: .pgProvider)
        try c.encode(pgTid, forKey: .pgTid)
        try c.encode(buyerEmail, forKey: .buyerEmail)
        try c.encode(buyerName, forKey: .buyerName)
        try c.encode(customData, forKey: .customData)
        try c.encode(paidAt, forKey: .paidAt)
        try c.encode(cancelledAt, forKey: .cancelledAt)
        try c.encode(failedAt, forKey: .failedAt)
        try c.encode(startedAt, forKey: .startedAt)
        try c.encode(cancelReason, forKey: .cancelReason)
        try c.encode(cancelHistory, forKey: .cancelHistory)
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            impUid: try c.decode(String.self, forKey: .impUid),
            merchantUid: try c.decode(String.self, forKey: .merchantUid),
            amount: try c.decode(Int.self, forKey: .amount),
            cancelAmount: try c.decodeIfPresent(Int.self, forKey: .cancelAmount) ?? 0,
            currency: try c.decodeIfPresent(String.self, forKey: .currency) ?? "KRW",
            status: try c.decode(PortOnePaymentStatus.self, forKey: .status),
            name: try c.decodeIfPresent(String.self, forKey: .name),
            payMethod: try c.decodeIfPresent(String.self, forKey: .payMethod) ?? "card",
            pgProvider: try c.decodeIfPresent(String.self, forKey: .pgProvider) ?? "html5_inicis",
            pgTid: try c.decodeIfPresent(String.self, forKey: .pgTid) ?? "",
            buyerEmail: try c.decodeIfPresent(String.self, forKey: .buyerEmail),
            buyerName: try c.decodeIfPresent(String.self, forKey: .buyerName),
            customData: try c.decodeIfPresent(String.self, forKey: .customData),
            paidAt: try c.decodeIfPresent(Int.self, forKey: .paidAt) ?? 0,
            cancelledAt: try c.decodeIfPresent(Int.self, forKey: .cancelledAt) ?? 0,
            failedAt: try c.decodeIfPresent(Int.self, forKey: .failedAt) ?? 0,
            startedAt: try c.decodeIfPresent(Int.self, forKey: .startedAt) ?? 0,
            cancelReason: try c.decodeIfPresent(String.self, forKey: .cancelReason),
            cancelHistory: try c.decodeIfPresent([PortOneCancel].self, forKey: .cancelHistory) ?? []
        )
    }
}

extension PortOneCancel: Codable {
    enum CodingKeys: String, CodingKey {
        case amount, reason
        case at = "cancelled_at"
        case pgTid = "pg_tid"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(amount, forKey: .amount)
        try c.encode(reason, forKey: .reason)
        try c.encode(at, forKey: .at)
        try c.encode(pgTid, forKey: .pgTid)
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            amount: try c.decode(Int.self, forKey: .amount),
            reason: try c.decodeIfPresent(String.self, forKey: .reason),
            at: try c.decode(Int.self, forKey: .at),
            pgTid: try c.decodeIfPresent(String.self, forKey: .pgTid) ?? ""
        )
    }
}
