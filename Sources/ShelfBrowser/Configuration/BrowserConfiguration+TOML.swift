internal import Foundation
internal import ShelfTerminal
internal import TOMLKit

extension BrowserConfiguration {
    /// The configuration `text` describes, with a problem for each part that is wrong (named
    /// `file` in messages). A line TOML cannot read is left out and the rest read again, so one
    /// typo costs that line only.
    public static func parse(_ text: String, file: String = "config.toml") -> BrowserConfiguration {
        parse(text, file: file, problems: [])
    }

    /// `parse(_:file:)`, after `problems` found while reading the file (lines not UTF-8).
    static func parse(_ text: String, file: String, problems earlier: [ConfigurationProblem]) -> BrowserConfiguration {
        var configuration = BrowserConfiguration()
        // A byte-order mark is no part of the first line, and CRLF ends lines as LF does: Swift
        // reads "\r\n" as one character, so splitting at "\n" made a Windows file one line, and
        // every problem was named at line 1 or at none (hostile tester, round 8).
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        var lines = body.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.map(String.init)
        var problems = earlier
        // A table's header left out takes the lines under it along, up to the next header: read,
        // they went into the table before it (hostile round 11). Says what it left out.
        // The lines (not blank, not comments) under a header at `index` left out, up to the
        // next header; 0 for a line that is not a header.
        func clearUnder(_ index: Int) -> Int {
            guard lines[index].drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("[") else { return 0 }
            var count = 0
            var next = index + 1
            while next < lines.count, !TOMLLineKey(lines[next]).isHeader {
                let text = lines[next].trimmingCharacters(in: .whitespaces)
                if !text.isEmpty && !text.hasPrefix("#") { count += 1 }
                lines[next] = ""
                next += 1
            }
            return count
        }
        func leaveOutUnder(_ index: Int) -> String {
            let count = clearUnder(index)
            guard count > 0 else { return "" }
            let before = lines[..<index].last { TOMLLineKey($0).isHeader && !TOMLLineKey($0).parts.isEmpty }
            let place = before.map { "[\(TOMLLineKey($0).written)]" } ?? "the top level, outside any table"
            let them = count == 1 ? "is the line" : "are the \(count) lines"
            let would = count == 1 ? "it would have gone" : "they would have gone"
            return ", and so \(them) under it up to the next table (read, \(would) into \(place)); correct the header"
        }
        // Lines TOMLKit must not see: a NUL ends its reading of the file without an error (the
        // rest of the file was lost without a word), and a key of tens of thousands of dotted
        // parts overflows its stack (a crash of `shelf config` and `shelf browse`).
        let original = lines
        var ignored: [(index: Int, message: String)] = []
        for index in lines.indices {
            let line = lines[index]
            if line.utf8.contains(0) {
                ignored.append((index, "a NUL character (TOML allows none); line ignored"))
                continue
            }
            // The dots between the key's parts only: not those of a comment after a table's
            // header, of a value, or inside a quoted part ("a.b" is one part).
            if TOMLLineKey(line).dots > maximumKeyParts {
                ignored.append((index, "a key of more than \(maximumKeyParts) dotted parts; line ignored"))
            }
        }
        // Each named first, then a header's lines left out with it (a line under it that is
        // wrong itself was named above).
        for (index, _) in ignored { lines[index] = "" }
        for (index, message) in ignored {
            lines[index] = original[index]
            let under = leaveOutUnder(index)
            lines[index] = ""
            problems.append(ConfigurationProblem(file: file, line: index + 1, message: message + under))
        }
        var table: TOMLTable?
        // Each round leaves out one more line TOML cannot read; a file with more bad lines than
        // this is not worth reading further, and that is said (the problems after the 20th
        // were dropped without a word).
        let rounds = 100
        for round in 1...rounds {
            do {
                table = try TOMLTable(string: lines.joined(separator: "\n"))
                break
            } catch let error as TOMLParseError {
                let line = error.source.begin.line
                if let twice = Self.tableSetTwice(error.description, line: line, in: lines) {
                    // A table's second header: it and its lines are left out, and belong under
                    // its first header (hostile round 12: the words assumed the TOML spec read).
                    let count = clearUnder(line - 1)
                    problems.append(
                        ConfigurationProblem(
                            file: file, line: line, message: Self.tableSetTwiceMessage(twice, lines: count)))
                } else {
                    let message =
                        Self.redefinition(error.description, line: line, in: lines)
                        ?? Self.unreadable(error.description)
                    guard lines.indices.contains(line - 1), !lines[line - 1].isEmpty else {
                        problems.append(
                            ConfigurationProblem(file: file, line: line, message: "\(message); line ignored"))
                        break
                    }
                    let under = leaveOutUnder(line - 1)
                    problems.append(
                        ConfigurationProblem(file: file, line: line, message: "\(message); line ignored\(under)"))
                }
                lines[line - 1] = ""
                if round == rounds {
                    problems.append(
                        ConfigurationProblem(
                            file: file, line: nil,
                            message: "more than \(rounds) lines TOML cannot read; the rest of the file was not "
                                + "read and the defaults apply; correct the lines named"))
                }
            } catch {
                problems.append(ConfigurationProblem(file: file, line: nil, message: "\(error); the defaults apply"))
                break
            }
        }
        var reader = ConfigurationReader(file: file, locator: LineLocator(lines: lines))
        if let table { reader.read(table, into: &configuration) }
        configuration.problems = (problems + reader.problems).sorted { ($0.line ?? 0) < ($1.line ?? 0) }
        return configuration
    }
}

extension BrowserConfiguration {
    /// TOMLKit's word on a key or table set twice, which echoes the key garbled (`'"hehelp" '`
    /// for `"he\u006cp"`, hostile round 8): the key as the file writes it instead, and the
    /// line that set it first. Nil for any other error.
    static func redefinition(_ description: String, line: Int, in lines: [String]) -> String? {
        guard description.contains("cannot redefine existing"), lines.indices.contains(line - 1) else { return nil }
        let key = TOMLLineKey(lines[line - 1])
        guard !key.parts.isEmpty, key.isAssignment, !key.isHeader else { return nil }
        let first = firstLine(of: line, in: lines)
        let already = first.map { "already set at line \($0)" } ?? "already set by an earlier line"
        let header = lines[..<(line - 1)].last { TOMLLineKey($0).isHeader }.map { TOMLLineKey($0).written }
        let place = header.map { " in [\($0)]" } ?? ""
        return "the key \(key.written)\(place) is \(already); TOML allows a key once in a table"
    }

    /// The line (from 1) that first names the path line `line` names, if an earlier one does.
    private static func firstLine(of line: Int, in lines: [String]) -> Int? {
        let paths = LineLocator.paths(of: Array(lines[..<line]))
        return paths.last.flatMap { path in paths.dropLast().firstIndex { $0 != nil && $0 == path } }.map { $0 + 1 }
    }

    /// For TOMLKit's word on a table's header at `line` that an earlier line already made: the
    /// table as the file writes it, and the line of its first header (nil when an earlier line
    /// made it otherwise, as `[keys]` with `list.quit = …` makes [keys.list]). Nil for any other
    /// error.
    static func tableSetTwice(_ description: String, line: Int, in lines: [String]) -> (
        table: String, first: Int?
    )? {
        guard description.contains("cannot redefine existing"), lines.indices.contains(line - 1) else { return nil }
        let key = TOMLLineKey(lines[line - 1])
        guard !key.parts.isEmpty, key.isHeader else { return nil }
        return (key.written, firstLine(of: line, in: lines))
    }

    /// What to do about a table's second header, left out with the `count` lines under it (not
    /// blank, not comments), in words for someone who never read the TOML spec: which lines,
    /// which table, and to move the lines under its first header or delete them.
    static func tableSetTwiceMessage(_ twice: (table: String, first: Int?), lines count: Int) -> String {
        let table = "[\(twice.table)]"
        let first = twice.first.map { "line \($0)" } ?? "an earlier line"
        let head =
            "\(table) is written twice: \(first) already starts this table, and a table may have only one "
            + "header, so"
        guard count > 0 else {
            return "\(head) this line is ignored; delete it (settings for \(table) go under \(first))"
        }
        let them = count == 1 ? "the line under it" : "the \(count) lines under it"
        let setting = count == 1 ? "that setting, move it" : "those settings, move them"
        return "\(head) this line and \(them) (up to the next header) are ignored; to keep \(setting) "
            + "under \(table) at \(first) and delete this line; else delete this line and \(them)"
    }

    /// The most dotted parts a key or table header may have: Shelf's deepest is 3
    /// (`[keys.list]` … `list.widths.title`).
    static let maximumKeyParts = 64
}

/// Reads the parsed tables into a configuration, collecting problems with their lines.
struct ConfigurationReader {
    let file: String
    let locator: LineLocator
    var problems: [ConfigurationProblem] = []

    mutating func problem(_ message: String, at path: [String], hint: String? = nil) {
        problems.append(ConfigurationProblem(file: file, line: locator.line(of: path), message: message, hint: hint))
    }

    mutating func read(_ root: TOMLTable, into configuration: inout BrowserConfiguration) {
        for (key, value) in root {
            switch key {
            case "keys": readKeys(value, into: &configuration)
            case "colors", "colours": readColors(value, section: key, into: &configuration)
            case "list": readList(value, into: &configuration)
            default:
                if value.table == nil {
                    // Hostile round 11: `quit = 1` at the top was called a section.
                    problem(
                        "“\(KeyName.shown(key))” is a setting outside any section; ignored", at: [key],
                        hint: "settings go in a section: keys in [keys.list] (quit = [\"q\"]), [colors] or [list]")
                } else {
                    problem("unknown section “\(key)”; ignored", at: [key], hint: "known: keys, colors, list")
                }
            }
        }
    }

    private mutating func readKeys(_ value: any TOMLValueConvertible, into configuration: inout BrowserConfiguration) {
        guard let modes = value.table else { return problem("keys must be a table ([keys.list] …)", at: ["keys"]) }
        var bindings: [KeyAction: [KeyEvent]] = [:]
        // Keys of the file left out (unknown, or that cannot arrive), per action: named with
        // what the action is left with when it is left with none, so that one problem is
        // named once (`[keys.help] close = ["q"]` was named as a key left out and again as a
        // way out with no key).
        var leftOut: [KeyAction: [LeftOutKey]] = [:]
        for (modeName, actionsValue) in modes {
            guard let mode = KeyMode(rawValue: modeName) else {
                let known = KeyMode.allCases.map(\.rawValue).joined(separator: ", ")
                problem(
                    "unknown mode “\(modeName)” in [keys]; ignored", at: ["keys", modeName], hint: "known: \(known)")
                continue
            }
            guard let actions = actionsValue.table else {
                problem("[keys.\(modeName)] must be a table of action = [\"key\", …]", at: ["keys", modeName])
                continue
            }
            for (actionName, keysValue) in actions {
                let path = ["keys", modeName, actionName]
                guard let action = KeyAction.all.first(where: { $0.mode == mode && $0.name == actionName }) else {
                    let known = KeyAction.all.filter { $0.mode == mode }.map(\.name).joined(separator: ", ")
                    problem(
                        "unknown action “\(actionName)” in [keys.\(modeName)]; ignored", at: path,
                        hint: "known: \(known)")
                    continue
                }
                let names: [String]
                if let single = keysValue.string {
                    names = [single]
                } else if let array = keysValue.array, array.allSatisfy({ $0.string != nil }) {
                    names = array.compactMap(\.string)
                } else {
                    problem("\(actionName) wants a list of key names, such as [\"j\", \"down\"]; ignored", at: path)
                    continue
                }
                var keys: [KeyEvent] = []
                for name in names {
                    if let key = KeyName.key(named: name) {
                        if let why = KeyName.cannotBind(key, in: mode) {
                            leftOut[action, default: []].append(
                                LeftOutKey(
                                    subject: "\(KeyName.shown(name)) for \(actionName)", reason: why.reason,
                                    advice: why.advice))
                            continue
                        }
                        keys.append(key)
                    } else {
                        leftOut[action, default: []].append(
                            LeftOutKey(
                                subject: "unknown key “\(KeyName.shown(name))” for \(actionName)",
                                hint: "a key is \(KeyName.knownNames)"))
                    }
                }
                bindings[action] = keys
            }
        }
        // A way out of a mode (quit, close, cancel, no) left with no key would trap the user
        // in it (only a signal gets out): its default keys are kept. So is one whose every key a
        // mode asked first takes (`[keys.user-form] close = ["ctrl-a"]`: [keys.text] has it).
        // Its defaults bound to other actions, of its mode or of one asked before it, are given
        // back to it.
        // Keys of the file given back to a way out, per action that had them.
        var givenBack: [KeyAction: [(key: KeyEvent, wayOut: KeyAction)]] = [:]
        for action in KeyAction.waysOut {
            let map = KeyMap(bindings: bindings)
            // Where the mode is the one keys are for (an opened item has its own way back).
            let orders = KeyMode.dispatchOrders.filter { $0.modes.first { $0 != .text } == action.mode }
            let keys = map.keys(for: action)
            let works = keys.filter { key in
                orders.allSatisfy { map.earlier(key, before: action.mode, in: $0.modes) == nil }
            }
            guard works.isEmpty else { continue }
            let blocked = orders.filter { order in
                keys.contains { map.earlier($0, before: action.mode, in: order.modes) != nil }
            }
            let earlierModes = Set(orders.flatMap { $0.modes.prefix { $0 != action.mode } })
            var path = ["keys", action.mode.rawValue, action.name]
            let wasBound = bindings[action] != nil
            bindings[action] = nil
            for other in KeyAction.all
            where other != action && (other.mode == action.mode || earlierModes.contains(other.mode)) {
                guard let keys = bindings[other], keys.contains(where: action.defaultKeys.contains) else { continue }
                bindings[other] = keys.filter { !action.defaultKeys.contains($0) }
                givenBack[other, default: []] += keys.filter(action.defaultKeys.contains).map { ($0, action) }
                if !wasBound { path = ["keys", other.mode.rawValue, other.name] }
            }
            let kept = KeyMap(bindings: bindings).keys(for: action).map(KeyName.name(of:)).joined(separator: ", ")
            let none =
                blocked.isEmpty
                ? "would have no key"
                : "would have no key that works in \(Self.list(blocked.map(\.place))) (a mode asked first takes "
                    + "\(keys.map(KeyName.name(of:)).joined(separator: ", ")))"
            let wayOut =
                "\(action.name) is the way out of [keys.\(action.mode.rawValue)] and \(none); "
                + "it keeps \(kept.isEmpty ? "none" : kept)"
            // Its own keys left out are the reason: one problem, not two.
            if wasBound, let own = leftOut.removeValue(forKey: action) {
                problem(
                    own.map(\.said).joined(separator: "; ") + "; left out, so " + wayOut, at: path,
                    hint: own.compactMap(\.hint).first)
            } else {
                problem(wayOut, at: path)
            }
        }
        let keyless = reportKeyless(&bindings, leftOut: &leftOut, givenBack: givenBack)
        for (action, reasons) in leftOut {
            for reason in reasons {
                problem(
                    reason.said + "; left out", at: ["keys", action.mode.rawValue, action.name], hint: reason.hint)
            }
        }
        configuration.keys = KeyMap(bindings: bindings)
        reportClashes(in: configuration.keys, bound: bindings.filter { !keyless.contains($0.key) })
        reportTakenDefaults(in: configuration.keys, bound: bindings)
        reportShadowed(in: configuration.keys, bound: bindings)
        reportNotesKeys(in: configuration.keys, bound: bindings)
    }

    private mutating func readColors(
        _ value: any TOMLValueConvertible, section: String, into configuration: inout BrowserConfiguration
    ) {
        guard let roles = value.table else { return problem("\(section) must be a table", at: [section]) }
        for (role, styleValue) in roles {
            let path = [section, role]
            guard let entry = Palette.roles.first(where: { $0.name == role }) else {
                let known = Palette.roles.map(\.name).joined(separator: ", ")
                problem("unknown colour role “\(role)”; ignored", at: path, hint: "known: \(known)")
                continue
            }
            guard let words = styleValue.string else {
                problem("\(role) wants a style in quotes, such as \"bold red\"; ignored", at: path)
                continue
            }
            switch StyleName.style(named: words) {
            case .success(let style): configuration.palette[keyPath: entry.path] = style
            case .failure(let error): problem("\(role): \(error.message); ignored", at: path, hint: error.hint)
            }
        }
    }

    private mutating func readList(_ value: any TOMLValueConvertible, into configuration: inout BrowserConfiguration) {
        guard let list = value.table else { return problem("list must be a table", at: ["list"]) }
        var widths: [ItemColumn.Field: Int] = [:]
        if let widthsValue = list["widths"] {
            if let table = widthsValue.table {
                for (name, widthValue) in table {
                    let path = ["list", "widths", name]
                    guard let field = ItemColumn.Field(rawValue: name) else {
                        problem("unknown column “\(name)”; ignored", at: path, hint: knownColumns)
                        continue
                    }
                    guard let width = widthValue.int, ItemColumn.widths.contains(width) else {
                        problem(
                            "the width of \(name) must be a whole number from \(ItemColumn.widths.lowerBound) to "
                                + "\(ItemColumn.widths.upperBound); ignored", at: path)
                        continue
                    }
                    widths[field] = width
                }
            } else {
                problem("list.widths must be a table of column = width", at: ["list", "widths"])
            }
        }
        var fields = ItemColumn.defaults.map(\.field)
        if let columnsValue = list["columns"] {
            if let array = columnsValue.array, array.allSatisfy({ $0.string != nil }) {
                var chosen: [ItemColumn.Field] = []
                for name in array.compactMap(\.string) {
                    guard let field = ItemColumn.Field(rawValue: name) else {
                        problem("unknown column “\(name)”; left out", at: ["list", "columns"], hint: knownColumns)
                        continue
                    }
                    guard !chosen.contains(field) else {
                        problem("column \(name) is named twice; shown once", at: ["list", "columns"])
                        continue
                    }
                    chosen.append(field)
                }
                if chosen.isEmpty {
                    problem(
                        "list.columns names no column it knows; the title is shown alone",
                        at: ["list", "columns"], hint: knownColumns)
                    chosen = [.title]
                }
                fields = chosen
            } else {
                problem(
                    "list.columns must be a list of column names, such as [\"title\", \"owner\"]",
                    at: ["list", "columns"])
            }
        }
        for key in list.keys where key != "columns" && key != "widths" {
            problem(
                "unknown setting “\(key)” in [list]; ignored", at: ["list", key], hint: "known: columns, widths")
        }
        configuration.columns = fields.map { field in
            ItemColumn(field, width: widths[field] ?? ItemColumn.defaults.first { $0.field == field }?.width ?? 10)
        }
    }

    private var knownColumns: String {
        "known: " + ItemColumn.Field.allCases.map(\.rawValue).joined(separator: ", ")
    }
}
