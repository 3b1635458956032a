import ShelfStore

/// Commands a message suggests (`shelf users add --name NAME …`), made to reach the database
/// this run used: a command run with `--db LOCATION` (or `--demo`) suggests commands with it,
/// since without it they would act on another database (SHELF_DB's, or the default one).
enum SuggestedCommand {
    /// Commands that are groups: their suggestions name a subcommand after them, and the
    /// option goes after that.
    private static let groups: Set<String> = ["users", "items", "views", "tokens"]
    /// Commands that take the database option themselves.
    private static let commands: Set<String> = [
        "import", "export", "backup", "restore", "migrate", "watch", "browse", "demo", "serve",
    ]

    /// `message` with `--db LOCATION` (shell-quoted; a URL's password shown as `***`) or
    /// `--demo` added to every command it suggests, when `arguments` (the command line, the
    /// program first) give one; `message` itself otherwise. A suggestion is `shelf` and a
    /// command right after a backquote or an opening parenthesis; one that already names
    /// `--db` is left alone.
    static func naming(databaseOf arguments: [String], in message: String) -> String {
        guard let option = databaseOption(arguments) else { return message }
        var result = ""
        var rest = Substring(message)
        while let start = rest.firstRange(of: "shelf ") {
            let before = rest[..<start.lowerBound]
            result += before
            result += "shelf "
            rest = rest[start.upperBound...]
            guard let opener = before.last, opener == "`" || opener == "(" else { continue }
            let closer: Character = opener == "`" ? "`" : ")"
            let suggestion = rest.prefix { $0 != closer }
            guard !suggestion.contains("--db"), !suggestion.contains("--demo") else { continue }
            let words = suggestion.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard let first = words.first else { continue }
            let taken: Int
            if groups.contains(String(first)), words.count >= 2, words[1].first?.isLetter == true {
                taken = 2
            } else if commands.contains(String(first)) {
                taken = 1
            } else {
                continue
            }
            let head = words.prefix(taken).joined(separator: " ")
            result += head + " " + option
            rest = rest.dropFirst(head.count)
        }
        return result + rest
    }

    /// `--db LOCATION` or `--demo` as the command line gives it, ready to paste; nil when it
    /// gives neither (the database then comes from SHELF_DB or the default, as it would for
    /// the suggested command).
    static func databaseOption(_ arguments: [String]) -> String? {
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument == "--demo" { return "--demo" }
            if argument == "--db", index + 1 < arguments.count {
                return "--db " + ShellQuoting.quoted(StoreLocation.redacted(arguments[index + 1]))
            }
            if argument.hasPrefix("--db=") {
                return "--db " + ShellQuoting.quoted(StoreLocation.redacted(String(argument.dropFirst(5))))
            }
            index += 1
        }
        return nil
    }
}
