public import ShelfTerminal

/// The keys in force: every action's default keys, or the keys the configuration file bound
/// to it instead.
///
/// Binding keys to an action replaces its default keys: a default key no action of the mode
/// keeps any more does nothing there (so `moveDown = ["ctrl-n"]` frees `j`).
public struct KeyMap: Sendable {
    /// Every action with its default keys.
    public static let defaults = KeyMap(bindings: [:])

    /// The keys bound per action, for those the configuration changed.
    private let bindings: [KeyAction: [KeyEvent]]
    /// Per mode, the action each bound key runs.
    private let actionByKey: [KeyMode: [KeyEvent: KeyAction]]
    /// Per mode, the default keys that no action of the mode keeps.
    private let freed: [KeyMode: Set<KeyEvent>]

    /// A key map that binds `bindings` (an action's keys replace its defaults) and keeps the
    /// defaults of every other action. When two actions of one mode claim a key, the one bound
    /// by `bindings` wins over a default, and otherwise the first in `KeyAction.all`.
    public init(bindings: [KeyAction: [KeyEvent]]) {
        self.bindings = bindings
        var actionByKey: [KeyMode: [KeyEvent: KeyAction]] = [:]
        // Configured keys first, so they win over a default of another action.
        for action in KeyAction.all {
            guard let keys = bindings[action] else { continue }
            for key in keys where actionByKey[action.mode]?[key] == nil {
                actionByKey[action.mode, default: [:]][key] = action
            }
        }
        for action in KeyAction.all where bindings[action] == nil {
            for key in action.defaultKeys where actionByKey[action.mode]?[key] == nil {
                actionByKey[action.mode, default: [:]][key] = action
            }
        }
        var freed: [KeyMode: Set<KeyEvent>] = [:]
        for action in KeyAction.all {
            for key in action.defaultKeys where actionByKey[action.mode]?[key] == nil {
                freed[action.mode, default: []].insert(key)
            }
        }
        self.actionByKey = actionByKey
        self.freed = freed
    }

    /// The keys bound to `action` now.
    public func keys(for action: KeyAction) -> [KeyEvent] {
        (bindings[action] ?? action.defaultKeys).filter { actionByKey[action.mode]?[$0] == action }
    }

    /// The action `event` runs in `mode`, if any.
    public func action(for event: KeyEvent, in mode: KeyMode) -> KeyAction? {
        actionByKey[mode]?[event]
    }

    /// The key the browser's controllers should see for `event` typed where `modes` apply
    /// (most specific first): the first default key of the action it is bound to, `event`
    /// itself when no mode binds it, or nil when it is a default key that its action no longer
    /// has (it does nothing).
    public func translate(_ event: KeyEvent, modes: [KeyMode]) -> KeyEvent? {
        for mode in modes {
            if let action = actionByKey[mode]?[event] { return action.defaultKeys[0] }
        }
        for mode in modes where freed[mode]?.contains(event) == true { return nil }
        return event
    }

    /// The action of a mode asked before `mode` in `modes` (most specific first) that has
    /// `key`: it takes the key before `mode` sees it there. Nil when none does.
    func earlier(_ key: KeyEvent, before mode: KeyMode, in modes: [KeyMode]) -> KeyAction? {
        guard let index = modes.firstIndex(of: mode) else { return nil }
        return modes[..<index].lazy.compactMap { self.actionByKey[$0]?[key] }.first
    }

    /// True when no binding differs from the defaults.
    public var isDefault: Bool {
        bindings.allSatisfy { $0.value == $0.key.defaultKeys }
    }
}
