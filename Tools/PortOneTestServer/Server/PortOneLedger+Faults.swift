// Armed faults and the per-call bookkeeping (counters + which fault, if any, hits this call).

/// A fault as armed, with its id and how many more calls it will affect (nil = unlimited).
package struct PortOneArmedFault: Sendable, Equatable {
    package var id: Int
    package var fault: PortOneFault
    package var remaining: Int?
}

extension PortOneLedger {
    /// Arms a fault; returns its id.
    @discardableResult
    package func addFault(_ fault: PortOneFault) -> Int {
        let id = nextFaultID
        nextFaultID += 1
        if let times = fault.times, times <= 0 { return id }
        faults.append(ArmedFault(id: id, fault: fault, remaining: fault.times))
        return id
    }

    /// Disarms every fault.
    package func clearFaults() {
        faults = []
    }

    /// The faults still armed.
    package func armedFaults() -> [PortOneArmedFault] {
        faults.map { PortOneArmedFault(id: $0.id, fault: $0.fault, remaining: $0.remaining) }
    }

    /// Records a call to `target` and returns the fault that hits it, if any (using up one of its `times`).
    func admit(_ target: PortOneFaultTarget, impUid: String? = nil, impKey: String? = nil) -> PortOneFaultKind? {
        switch target {
        case .token: if let impKey { tokenRequestCounts[impKey, default: 0] += 1 }
        case .lookup: if let impUid { lookupCounts[impUid, default: 0] += 1 }
        case .cancel: if let impUid { cancelRequestCounts[impUid, default: 0] += 1 }
        }
        guard let index = faults.firstIndex(where: { $0.fault.matches(target: target, impUid: impUid, impKey: impKey) })
        else { return nil }
        let kind = faults[index].fault.kind
        if let remaining = faults[index].remaining {
            if remaining <= 1 {
                faults.remove(at: index)
            } else {
                faults[index].remaining = remaining - 1
            }
        }
        return kind
    }

    /// `admit(.cancel, …)` for a cancel that may name only a merchant_uid.
    func admitCancel(impUid: String?, merchantUid: String?) -> PortOneFaultKind? {
        let resolved = resolvePayment(impUid: impUid, merchantUid: merchantUid)?.impUid
        let given = (impUid?.isEmpty ?? true) ? nil : impUid
        return admit(.cancel, impUid: resolved ?? given)
    }
}
