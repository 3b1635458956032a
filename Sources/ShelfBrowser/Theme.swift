internal import ShelfPresentation
internal import ShelfTerminal

/// The styles in force, by role: the palette of the configuration file, set once before the
/// browser's first controller is made (`BrowserController.init(viewModel:configuration:)`);
/// read by the controllers as they build their views.
@MainActor
enum Theme {
    static var palette = Palette()
    /// The keys in force (set with the palette), for hints that name keys.
    static var keys = KeyMap.defaults {
        didSet { keyNames = names(of: keys) }
    }
    /// How the view models' hints name keys: the rebound actions' keys (`keyHint`), by
    /// `mode.action`.
    private(set) static var keyNames = KeyNames.defaults

    /// The names of the actions `keys` binds otherwise than by default.
    private static func names(of keys: KeyMap) -> KeyNames {
        var rebound: [String: String] = [:]
        for action in KeyAction.all where keys.keys(for: action) != action.defaultKeys {
            rebound["\(action.mode.rawValue).\(action.name)"] = keyHint(action.mode, action.name)
        }
        return KeyNames(rebound: rebound)
    }

    /// How a hint names the keys of `action` now: its first key, and its first key that is not
    /// a plain character (Enter, Esc, Ctrl-G) when that differs ("y / Enter"); "no key" when
    /// none is bound.
    static func keyHint(_ mode: KeyMode, _ name: String) -> String {
        guard let action = KeyAction.all.first(where: { $0.mode == mode && $0.name == name }) else { return name }
        let bound = keys.keys(for: action)
        guard let first = bound.first else { return "no key" }
        var shown = [first]
        let plain = { (key: KeyEvent) in if case .character = key.key { key.modifiers.isEmpty } else { false } }
        if let other = bound.first(where: { !plain($0) }), other != first {
            shown.append(other)
        }
        // As the help names keys (`Ctrl-G`, `Esc`, `↓`).
        return shown.map(\.description).joined(separator: " / ")
    }

    static var done: Style { palette.done }
    static var priority: Style { palette.priority }
    static var owner: Style { palette.owner }
    static var date: Style { palette.date }
    static var status: Style { palette.status }
    static var error: Style { palette.error }
    static var hint: Style { palette.hint }
    static var title: Style { palette.title }
    static var label: Style { palette.label }
    static var badge: Style { palette.badge }
    static var mark: Style { palette.mark }
    /// The words a search matched, in the titles.
    static var match: Style { palette.match }
}
