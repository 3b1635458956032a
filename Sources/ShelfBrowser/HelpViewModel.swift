internal import ShelfPresentation
internal import ShelfReactive
internal import ShelfTerminal

/// The keys in force, every mode's, from a `KeyMap` (so keys the configuration bound show
/// as bound), with the mouse and the keys no configuration changes; filtered by typed words.
public struct HelpViewModel: Sendable {
    /// One key line of the help.
    public struct Line: Hashable, Sendable {
        /// The keys, as help names them (`j ↓`, `Ctrl-R`).
        public let keys: String
        /// What they do.
        public let summary: String
    }

    /// A titled group of lines.
    public struct Section: Hashable, Sendable {
        /// The heading (`List: Move`, `Item editor (n, e)`).
        public let title: String
        /// Its lines.
        public let lines: [Line]
    }

    /// Every section, in the order of the modes.
    public let sections: [Section]

    /// The help for `keys` (the defaults unless given).
    public init(keys: KeyMap = .defaults) {
        var sections: [Section] = []
        for mode in KeyMode.allCases {
            var groups: [(title: String, lines: [Line])] = []
            let heading = mode.title(keys: keys)
            for action in KeyAction.all where action.mode == mode {
                let bound = keys.keys(for: action)
                let line = Line(
                    keys: bound.isEmpty ? "(none)" : bound.map(\.description).joined(separator: " "),
                    summary: action.summary)
                let title = action.section.isEmpty ? heading : "\(heading): \(action.section)"
                if let index = groups.firstIndex(where: { $0.title == title }) {
                    groups[index].lines.append(line)
                } else {
                    groups.append((title, [line]))
                }
            }
            let fixed = KeyAction.fixed.filter { $0.mode == mode }.map { Line(keys: $0.keys, summary: $0.summary) }
            if !fixed.isEmpty {
                let title = mode == .list ? "\(heading): mouse and more" : heading
                if let index = groups.firstIndex(where: { $0.title == title }) {
                    groups[index].lines += fixed
                } else {
                    groups.append((title, fixed))
                }
            }
            sections += groups.map { Section(title: $0.title, lines: $0.lines) }
        }
        self.sections = sections
    }

    /// The sections with only the lines whose keys, words or section title contain every
    /// word of `filter` (ignoring case); sections left empty are left out.
    public func sections(matching filter: String) -> [Section] {
        let words = filter.lowercased().split(separator: " ").map(String.init)
        guard !words.isEmpty else { return sections }
        return sections.compactMap { section in
            let title = section.title.lowercased()
            let lines = section.lines.filter { line in
                let text = title + " " + line.keys.lowercased() + " " + line.summary.lowercased()
                return words.allSatisfy { text.contains($0) }
            }
            return lines.isEmpty ? nil : Section(title: section.title, lines: lines)
        }
    }
}
