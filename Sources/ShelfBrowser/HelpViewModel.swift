internal import ShelfPresentation
internal import ShelfReactive
internal import ShelfTerminal

/// The keys, generated from `KeyBindings.table`.
public struct HelpViewModel: Sendable {
    /// One line per binding, grouped in sections.
    public let sections: [(title: String, lines: [(keys: String, summary: String)])]

    public init(bindings: [KeyBinding] = KeyBindings.table) {
        var sections: [(title: String, lines: [(keys: String, summary: String)])] = []
        for binding in bindings {
            let line = (binding.keys.map(\.description).joined(separator: " "), binding.summary)
            if let index = sections.firstIndex(where: { $0.title == binding.section }) {
                sections[index].lines.append(line)
            } else {
                sections.append((binding.section, [line]))
            }
        }
        self.sections = sections
    }
}
