internal import ShelfTerminal

extension ConfigurationReader {
    /// Names each action the file bound that is left with no key of its mode (hostile round
    /// 8: `help = ["banana"]` left help with none, and `yes` given every key of `no` was named
    /// only as no's loss), at its line, with why and what it comes to: it keeps those of its
    /// default keys no action of the mode has, else nothing runs it and the file should give it
    /// a key. `help = []` unbinds it on purpose (as lazygit's `<disabled>` does): that is not
    /// a problem, and it is not named at every start (a way out is never left keyless). The
    /// action's keys left out are named in its problem (taken from `leftOut`). Returns the
    /// actions named.
    mutating func reportKeyless(
        _ bindings: inout [KeyAction: [KeyEvent]], leftOut: inout [KeyAction: [LeftOutKey]],
        givenBack: [KeyAction: [(key: KeyEvent, wayOut: KeyAction)]]
    ) -> Set<KeyAction> {
        var named: Set<KeyAction> = []
        for action in KeyAction.all {
            guard let given = bindings[action] else { continue }  // its defaults: reportTakenDefaults
            let map = KeyMap(bindings: bindings)
            guard map.keys(for: action).isEmpty else { continue }
            let mode = "[keys.\(action.mode.rawValue)]"
            let own = leftOut.removeValue(forKey: action) ?? []
            var reasons = own.map(\.leftOut)
            let back = givenBack[action] ?? []
            for wayOut in KeyAction.waysOut where back.contains(where: { $0.wayOut == wayOut }) {
                let keys = back.filter { $0.wayOut == wayOut }.map { KeyName.name(of: $0.key) }
                reasons.append(
                    "\(Self.list(keys)) \(keys.count == 1 ? "stays" : "stay") with \(wayOut.name), the way out of \(mode)"
                )
            }
            // A key another action of the mode takes: said at the later of the two lines, the
            // one that made the clash, naming the earlier (hostile round 12).
            var line = locator.line(of: ["keys", action.mode.rawValue, action.name])
            var clashAdvice: [String] = []
            for key in given {
                guard let holder = map.action(for: key, in: action.mode), holder != action else { continue }
                // The winner is the action the help lists first, not the line bound first (hostile
                // round 11: "bound before it" named the later line).
                let clash = clash(key, holder: holder, loser: action)
                reasons.append(clash.said)
                clashAdvice.append(clash.advice)
                if let at = clash.line, at > (line ?? 0) { line = at }
            }
            let defaults = action.defaultKeys.map(KeyName.name(of:)).joined(separator: ", ")
            let free = action.defaultKeys.filter { map.action(for: $0, in: action.mode) == nil }
            let message: String
            if reasons.isEmpty {
                continue  // `= []`: unbound on purpose
            } else if free.isEmpty {
                message =
                    reasons.joined(separator: "; ") + ": \(action.name) has no key left and its defaults (\(defaults)) "
                    + "are taken, so nothing runs it; give it a free key in \(mode), such as \(action.name) = [\"KEY\"]"
            } else {
                bindings[action] = free
                let word = free.count == 1 ? "default" : "defaults"
                // The advice for a key refused (`bind enter or another key`) ends the sentence,
                // as does what to do about a clash.
                let advice =
                    own.compactMap(\.advice).first.map { "; \($0) for \(action.name)" }
                    ?? clashAdvice.first.map { "; \($0)" } ?? ""
                message =
                    reasons.joined(separator: "; ") + ": \(action.name) has no key left, so it keeps its \(word) "
                    + free.map(KeyName.name(of:)).joined(separator: ", ") + advice
            }
            problems.append(
                ConfigurationProblem(file: file, line: line, message: message, hint: own.compactMap(\.hint).first))
            named.insert(action)
        }
        return named
    }
}
