internal import ShelfTerminal

/// The keys a file binds that meet: clashes in one mode, keys an earlier mode takes, defaults
/// a binding took.
extension ConfigurationReader {
    /// Names, once, each key of the file that a mode asked before its own takes somewhere
    /// (`KeyMode.dispatchOrders`): `[keys.editor] save = ["ctrl-a"]` never saves from a text
    /// field, whose [keys.text] lineStart has Ctrl-A first. A key the file bound to the action
    /// is named at the action's line, with where it still runs; a key the file bound in the
    /// earlier mode that takes a later mode's default key is named at its own line, with what
    /// the action keeps there. Two default keys that meet (Enter, Esc and q in an opened item),
    /// bound in the file or not, are the design and not named.
    mutating func reportShadowed(in map: KeyMap, bound: [KeyAction: [KeyEvent]]) {
        struct Meeting: Hashable {
            let action: KeyAction
            let key: KeyEvent
            let taker: KeyAction
        }
        var meetings: [Meeting] = []
        var places: [Meeting: [String]] = [:]
        for order in KeyMode.dispatchOrders where order.modes.count > 1 {
            for action in KeyAction.all where order.modes.dropFirst().contains(action.mode) {
                for key in map.keys(for: action) {
                    guard let taker = map.earlier(key, before: action.mode, in: order.modes),
                        bound[action] != nil || bound[taker] != nil,
                        // Defaults that meet so (q in an opened item goes back) are the design.
                        !(taker.defaultKeys.contains(key) && action.defaultKeys.contains(key))
                    else { continue }
                    let meeting = Meeting(action: action, key: key, taker: taker)
                    if places[meeting] == nil { meetings.append(meeting) }
                    places[meeting, default: []].append(order.place)
                }
            }
        }
        for meeting in meetings {
            let (action, taker) = (meeting.action, meeting.taker)
            let key = KeyName.name(of: meeting.key)
            let taken = places[meeting] ?? []
            let mode = "[keys.\(action.mode.rawValue)]"
            let takerMode = "[keys.\(taker.mode.rawValue)]"
            let there = Self.list(taken)
            if bound[action] != nil {
                let runs = KeyMode.dispatchOrders.filter { $0.modes.contains(action.mode) && !taken.contains($0.place) }
                let head =
                    runs.isEmpty
                    ? "\(key) for \(action.name) never runs"
                    : "\(key) for \(action.name) runs only in \(Self.list(runs.map(\.place)))"
                problem(
                    "\(head): \(taker.name) of \(takerMode) takes it first in \(there); bind \(action.name) "
                        + "another key, or \(taker.name) others",
                    at: ["keys", action.mode.rawValue, action.name])
            } else {
                // What the action keeps where its key is taken.
                let kept = map.keys(for: action).filter { other in
                    KeyMode.dispatchOrders.allSatisfy { order in
                        !taken.contains(order.place) || map.earlier(other, before: action.mode, in: order.modes) == nil
                    }
                }
                let keeps =
                    kept.isEmpty
                    ? "nothing runs \(action.name) there"
                    : "\(action.name) keeps \(kept.map(KeyName.name(of:)).joined(separator: ", ")) there"
                problem(
                    "\(key) for \(taker.name) takes it from \(action.name) of \(mode) in \(there): \(keeps); "
                        + "bind \(taker.name) another key, or \(action.name) one in \(mode)",
                    at: ["keys", taker.mode.rawValue, taker.name])
            }
        }
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ words: [String]) -> String {
        guard words.count > 1, let last = words.last else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " and " + last
    }

    /// Names, once, each action the file leaves alone whose default keys it gave to another
    /// action of the mode (`help = ["j"]` takes j from moveDown): what the action keeps, or,
    /// when it lost every key, that nothing runs it now and how to give it a key. At the line
    /// of the action that took the key.
    mutating func reportTakenDefaults(in map: KeyMap, bound: [KeyAction: [KeyEvent]]) {
        for action in KeyAction.all where bound[action] == nil {
            let taken: [(key: KeyEvent, holder: KeyAction)] = action.defaultKeys.compactMap { key in
                guard let holder = map.action(for: key, in: action.mode), holder != action, bound[holder] != nil
                else { return nil }
                return (key, holder)
            }
            guard let first = taken.first else { continue }
            let mode = action.mode.rawValue
            let took = taken.map { "\(KeyName.name(of: $0.key)) for \($0.holder.name)" }.joined(separator: " and ")
            let kept = map.keys(for: action).map(KeyName.name(of:))
            let message: String
            if kept.isEmpty {
                let what = action.defaultKeys.count == 1 ? "only key" : "keys"
                message =
                    "\(took) took \(action.name)'s \(what): nothing runs \(action.name) now; give it a key in "
                    + "[keys.\(mode)], such as \(action.name) = [\"KEY\"]"
            } else {
                message =
                    "\(took) took a key of \(action.name), which keeps \(kept.joined(separator: ", ")) "
                    + "(to say so and end this notice: \(action.name) = [\(kept.map { "\"\($0)\"" }.joined(separator: ", "))] "
                    + "in [keys.\(mode)])"
            }
            problem(message, at: ["keys", mode, first.holder.name])
        }
    }

    /// Names a key bound to two actions of one mode that both keep other keys (the first in
    /// the help takes it), at the later of the two lines (see `clash(_:holder:loser:)`).
    mutating func reportClashes(in map: KeyMap, bound: [KeyAction: [KeyEvent]]) {
        for action in KeyAction.all {
            for key in bound[action] ?? [] {
                guard let holder = map.action(for: key, in: action.mode), holder != action else { continue }
                let clash = clash(key, holder: holder, loser: action)
                let kept = map.keys(for: action).map(KeyName.name(of:)).joined(separator: ", ")
                problems.append(
                    ConfigurationProblem(
                        file: file, line: clash.line,
                        message: "\(clash.said): \(action.name) keeps \(kept); \(clash.advice)"))
            }
        }
    }

    /// A key the file bound to two actions of one mode, `holder` (which takes it, listed first
    /// in the help) and `loser`, said at the later of their two lines, the one that made the
    /// clash (hostile round 12: it was named at the loser's line, the earlier one when the
    /// holder is bound after it), with the earlier binding's line, and what to do: give the
    /// later line's action another key, or the earlier's.
    func clash(_ key: KeyEvent, holder: KeyAction, loser: KeyAction) -> (line: Int?, said: String, advice: String) {
        let name = KeyName.name(of: key)
        let holderLine = locator.line(of: ["keys", holder.mode.rawValue, holder.name])
        let loserLine = locator.line(of: ["keys", loser.mode.rawValue, loser.name])
        let holderFirst = (holderLine ?? 0) < (loserLine ?? 0)
        let (earlier, later) = holderFirst ? (holder, loser) : (loser, holder)
        let (earlierLine, laterLine) = holderFirst ? (holderLine, loserLine) : (loserLine, holderLine)
        let at = { (line: Int?) in line.map { "line \($0)" } ?? "an earlier line" }
        let said =
            "\(name) for \(later.name) is already bound to \(earlier.name) at \(at(earlierLine)) of "
            + "[keys.\(loser.mode.rawValue)]; \(holder.name) takes it (of two actions given one key, the one the "
            + "help lists first takes it)"
        let advice =
            "give \(later.name) another key on \(laterLine.map { "line \($0)" } ?? "its line"), or take "
            + "\(name) out of \(earlier.name) on \(at(earlierLine))"
        return (laterLine ?? earlierLine, said, advice)
    }
}
