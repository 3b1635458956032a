/// How hints name the keys that act: the browser's configuration file may rebind any action,
/// and a hint that names a key must name the one in force. A hint asks for an action by its
/// mode and name as the configuration file writes them (`"editor.save"`, `"user-form.close"`)
/// with the default key's words (`"Ctrl-S"`); the answer is the rebound key's name when the
/// action was rebound, and the default's otherwise.
public struct KeyNames: Hashable, Sendable {
    /// The names of the rebound actions' keys, by `mode.action`.
    public var rebound: [String: String]

    /// Names rebound keys by `rebound` (`["editor.save": "Ctrl-W"]`); every other action keeps
    /// its default's words.
    public init(rebound: [String: String] = [:]) {
        self.rebound = rebound
    }

    /// The default keys' names: what a browser without a configuration file shows.
    public static let defaults = KeyNames()

    /// The name of the key of `action` (`"editor.save"`), or `standard` when it was not rebound.
    public func callAsFunction(_ action: String, _ standard: String) -> String {
        rebound[action] ?? standard
    }
}
