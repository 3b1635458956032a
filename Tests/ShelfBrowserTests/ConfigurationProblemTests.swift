import Foundation
import ShelfPresentation
import ShelfTerminal
import Testing

@testable import ShelfBrowser

/// The configuration file's problems: bad lines, hostile bytes, refused keys, and how each is
/// named (split from `ConfigurationTests`, which reads what a good file binds).
@Suite("Configuration file: problems named")
struct ConfigurationProblemTests {
    private func action(_ mode: KeyMode, _ name: String) throws -> KeyAction {
        try #require(KeyAction.all.first { $0.mode == mode && $0.name == name })
    }

    /// Hostile round 13: `help = ["j"]` took j from moveDown without a word (and `search =
    /// ["s"]` left "change the order" no key at all). Each such action is named once, at the
    /// line that took its key, with what it keeps or how to give it one.
    @Test func aDefaultKeyTakenByTheFileIsNamed() throws {
        let configuration = BrowserConfiguration.parse(
            """
            [keys.list]
            help = ["j"]
            search = ["s", "/"]
            [keys.users]
            add = ["d"]
            """)
        #expect(
            configuration.problems.map(\.description) == [
                "config.toml:2: j for help took a key of moveDown, which keeps down "
                    + "(to say so and end this notice: moveDown = [\"down\"] in [keys.list])",
                "config.toml:3: s for search took cycleSort's only key: nothing runs cycleSort now; give it a key in "
                    + "[keys.list], such as cycleSort = [\"KEY\"]",
                "config.toml:5: d for add took a key of delete, which keeps del "
                    + "(to say so and end this notice: delete = [\"del\"] in [keys.users])",
            ])
        // Said so in the file: no notice.
        let meant = BrowserConfiguration.parse("[keys.list]\nhelp = [\"j\"]\nmoveDown = [\"down\"]\n")
        #expect(meant.problems == [])
        #expect(meant.keys.keys(for: try action(.list, "moveDown")) == [KeyEvent(.down)])
    }

    /// Issue 26: `[keys.editor] save = ["ctrl-a"]` never saved from a text field, where the
    /// text keys' lineStart has Ctrl-A first, and nothing said so. Each key of the file that a
    /// mode asked first takes is named once, at its line, with where it still runs; a key the
    /// file bound in the mode asked first that takes a later mode's default is named too; a way
    /// out whose every key is taken keeps its defaults; Ctrl-Z (the terminal's suspend) is
    /// refused.
    @Test func aKeyAModeAskedFirstTakesIsNamed() throws {
        let configuration = BrowserConfiguration.parse(
            """
            [keys.editor]
            save = ["ctrl-a"]
            [keys.search]
            done = ["ctrl-e", "enter"]
            [keys.list]
            top = ["q", "g"]
            quit = ["ctrl-q"]
            [keys.text]
            deleteToEnd = ["ctrl-s", "ctrl-k"]
            [keys.prompt]
            accept = ["ctrl-u"]
            [keys.user-form]
            close = ["ctrl-w"]
            [keys.users]
            add = ["ctrl-z", "a"]
            """)
        #expect(
            configuration.problems.map(\.description) == [
                "config.toml:2: ctrl-a for save runs only in the editor's status field: lineStart of [keys.text] "
                    + "takes it first in the editor's text fields and notes; bind save another key, or lineStart others",
                "config.toml:4: ctrl-e for done never runs: lineEnd of [keys.text] takes it first in the search "
                    + "field; bind done another key, or lineEnd others",
                "config.toml:6: q for top runs only in the list: back of [keys.detail] takes it first in an item "
                    + "opened on the whole screen; bind top another key, or back others",
                "config.toml:9: ctrl-s for deleteToEnd takes it from save of [keys.user-form] in the user form: "
                    + "save keeps enter there; bind deleteToEnd another key, or save one in [keys.user-form]",
                "config.toml:11: ctrl-u for accept never runs: deleteToStart of [keys.text] takes it first in a "
                    + "prompt; bind accept another key, or deleteToStart others",
                "config.toml:13: close is the way out of [keys.user-form] and would have no key that works in the "
                    + "user form (a mode asked first takes ctrl-w); it keeps esc, ctrl-c",
                "config.toml:15: ctrl-z for add: the terminal suspends the browser with it before any mode sees it "
                    + "(fg brings it back); bind another key; left out",
            ])
        // With save left alone, the editor's Ctrl-S is the one taken, and nothing saves there.
        #expect(
            BrowserConfiguration.parse("[keys.text]\ndeleteToEnd = [\"ctrl-s\", \"ctrl-k\"]").problems.map(
                \.description)
                == [
                    "config.toml:2: ctrl-s for deleteToEnd takes it from save of [keys.editor] in the editor's text "
                        + "fields and notes: nothing runs save there; bind deleteToEnd another key, or save one in "
                        + "[keys.editor]",
                    "config.toml:2: ctrl-s for deleteToEnd takes it from save of [keys.user-form] in the user form: "
                        + "save keeps enter there; bind deleteToEnd another key, or save one in [keys.user-form]",
                ])
        let keys = configuration.keys
        #expect(keys.keys(for: try action(.userForm, "close")) == [KeyEvent(.escape), .control("c")])
        #expect(keys.keys(for: try action(.users, "add")) == [.character("a")])
        // Where the editor asks [keys.text] first, Ctrl-A is still the start of the line; on the
        // status field it saves.
        #expect(keys.translate(.control("a"), modes: [.text, .editor]) == KeyEvent(.home))
        #expect(keys.translate(.control("a"), modes: [.editor]) == .control("s"))
        // Keys that meet by default (q, Enter and Esc go back from an opened item) say nothing,
        // and neither does a key no mode asked first has.
        #expect(BrowserConfiguration.parse("[keys.list]\nquit = [\"q\"]\nopen = [\"enter\"]").problems == [])
        #expect(BrowserConfiguration.parse("[keys.editor]\nsave = [\"ctrl-x\"]").problems == [])
        #expect(BrowserConfiguration.parse(BrowserConfiguration.defaultFileText).problems == [])
    }

    /// Hostile round 6: a NUL ended TOMLKit's reading without an error (the rest of the file
    /// was lost without a word), and a key of 50,000 dotted parts crashed `shelf config` and
    /// `shelf browse` (SIGSEGV). Each is now a named line, and the rest applies.
    /// Thirty lines TOML cannot read cost those lines only, and a problem after them is still
    /// named (only 20 were read, and the rest dropped without a word: hostile tester, round
    /// 8); past 100 the file is left, and that is said.
    @Test func manyBadLinesAreAllNamed() throws {
        let bad = (0..<30).map { "bad line \($0)" }.joined(separator: "\n")
        let configuration = BrowserConfiguration.parse("[keys.list]\nquit = [\"Q\"]\n\(bad)\nhelp = [\"banana\"]\n")
        let said = configuration.problems.map(\.description)
        #expect(said.filter { $0.hasSuffix("line ignored") }.count == 30, "\(said)")
        #expect(said.contains { $0.hasPrefix("config.toml:33: unknown key “banana”") }, "\(said)")
        #expect(configuration.keys.keys(for: try action(.list, "quit")) == [.character("Q")])
        let worse = (0..<101).map { "bad line \($0)" }.joined(separator: "\n")
        let left = BrowserConfiguration.parse("[keys.list]\nquit = [\"Q\"]\n\(worse)\n").problems.map(\.description)
        #expect(left.contains { $0.contains("more than 100 lines TOML cannot read") }, "\(left.prefix(3))")
    }

    /// A file with CRLF line ends, or a byte-order mark, names each problem at its own line
    /// (hostile tester, round 8: line 3's problem was named at line 1, others at no line).
    @Test(arguments: ["\r\n", "\n"], [false, true])
    func problemsAreNamedAtTheirLinesWhateverTheLineEnds(end: String, mark: Bool) throws {
        let text =
            (mark ? "\u{FEFF}" : "")
            + ["[keys.list]", "quit = [\"Q\"]", "help = [\"banana\"]", "[colors]", "done = \"zz\""].joined(
                separator: end) + end
        let configuration = BrowserConfiguration.parse(text)
        let said = configuration.problems.map(\.description)
        #expect(said.contains { $0.hasPrefix("config.toml:3: unknown key “banana”") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("config.toml:5: ") }, "\(said)")
        #expect(said.count == 2, "\(said)")
        #expect(configuration.keys.keys(for: try action(.list, "quit")) == [.character("Q")])
    }

    @Test func aNULOrADeepKeyCostsItsLineOnly() throws {
        let deep = "[" + Array(repeating: "a", count: 50_000).joined(separator: ".") + "]"
        let dotted = Array(repeating: "x", count: 40_000).joined(separator: ".") + " = 1"
        let configuration = BrowserConfiguration.parse(
            "# c\u{0}\n\(deep)\n\(dotted)\n[list]\ncolumns = [\"title\"]\n[keys.list]\nquit = [\"Q\"]\n")
        #expect(configuration.columns == [ItemColumn(.title, width: 12)])
        #expect(configuration.keys.keys(for: try action(.list, "quit")) == [.character("Q")])
        #expect(
            configuration.problems.map(\.description) == [
                "config.toml:1: a NUL character (TOML allows none); line ignored",
                "config.toml:2: a key of more than 64 dotted parts; line ignored",
                "config.toml:3: a key of more than 64 dotted parts; line ignored",
            ])
    }

    /// A line that is not UTF-8 is named and left out; the rest applies (it refused the whole
    /// file, with no line).
    @Test func aLineThatIsNotUTF8CostsThatLineOnly() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-\(UUID().uuidString).toml")
        defer { try? FileManager.default.removeItem(at: file) }
        try (Data("[list]\n# caf".utf8) + Data([0xE9]) + Data("\ncolumns = [\"title\"]\n".utf8)).write(to: file)
        let configuration = BrowserConfiguration.load(path: file.path)
        #expect(configuration.columns == [ItemColumn(.title, width: 12)])
        #expect(
            configuration.problems.map(\.description) == [
                "\(file.lastPathComponent):2: not UTF-8 text; line ignored (save the file as UTF-8)"
            ])
    }

    /// Hostile round 6: `quit = ["ctrl-j"]` read cleanly, and no key could end the browser (a
    /// terminal sends Ctrl-J as Enter); `save = ["x"]` in the editor made x untypable.
    @Test func keysThatCannotArriveOrWouldStopTypingAreRefused() throws {
        let configuration = BrowserConfiguration.parse(
            """
            [keys.list]
            quit = ["ctrl-j", "Q"]
            [keys.editor]
            save = ["x", "ctrl-w"]
            [keys.search]
            done = ["ctrl-m"]
            """)
        #expect(configuration.keys.keys(for: try action(.list, "quit")) == [.character("Q")])
        #expect(configuration.keys.keys(for: try action(.editor, "save")) == [.control("w")])
        let said = configuration.problems.map(\.description)
        #expect(
            said.contains(
                "config.toml:2: ctrl-j for quit: a terminal sends it as Enter, so it cannot be told apart; bind enter "
                    + "or another key; left out"), "\(said)")
        #expect(
            said.contains(
                "config.toml:4: x for save: it types text in [keys.editor], so it could not be typed; bind a key "
                    + "with ctrl- or alt-; left out"), "\(said)")
        // Left keyless by it: one sentence, the advice at its end (hostile round 11: "…; bind
        // enter or another key is left out: …").
        #expect(
            said.contains {
                $0.hasPrefix("config.toml:6: ctrl-m for done is left out because a terminal sends it as Enter")
                    && $0.hasSuffix("; bind enter or another key for done")
            }, "\(said)")
    }

    /// Characters no key types alone, and Shift with what a terminal sends without it, are
    /// refused and named visibly (hostile tester, round 8: `quit = ["\u202E"]` read cleanly
    /// and left a browser that q, Ctrl-C and Esc could not end; `help = ["shift-a"]` was
    /// advertised and never arrived).
    @Test func keysNoTerminalSendsAreRefused() throws {
        let configuration = BrowserConfiguration.parse(
            """
            [keys.list]
            quit = ["\\u202E"]
            help = ["\\u200B", "shift-a", "?"]
            undo = ["\\u009B", "u"]
            search = ["\\u0301", "/"]
            new = ["shift-enter", "shift-1", "n"]
            moveDown = ["shift-down", "j"]
            """)
        #expect(configuration.keys.keys(for: try action(.list, "help")) == [.character("?")])
        #expect(configuration.keys.keys(for: try action(.list, "new")) == [.character("n")])
        #expect(configuration.keys.keys(for: try action(.list, "moveDown")).count == 2)
        // quit kept its defaults: the way out is never left without a key.
        #expect(configuration.keys.keys(for: try action(.list, "quit")).contains(.character("q")))
        let said = configuration.problems.map(\.description)
        #expect(
            said.contains {
                $0.hasPrefix("config.toml:2: \\u{202E} for quit: \\u{202E} is a character no key types alone")
            },
            "\(said)")
        #expect(said.contains { $0.hasPrefix("config.toml:3: \\u{200B} for help:") }, "\(said)")
        #expect(
            said.contains(
                "config.toml:3: shift-a for help: a terminal sends Shift with a character as the character it types; "
                    + "bind “A” instead; left out"), "\(said)")
        #expect(said.contains { $0.hasPrefix("config.toml:4: \\u{9B} for undo:") }, "\(said)")
        // Hostile round 11: the advice keeps the other modifiers (it said bind “X”).
        let modified = BrowserConfiguration.parse(
            "[keys.list]\nhelp = [\"ctrl-shift-alt-x\"]\nusers = [\"alt-shift-u\"]\n"
        ).problems.map(\.message)
        #expect(
            modified.contains {
                $0.contains("a terminal sends Ctrl with a letter the same with or without Shift")
                    && $0.contains("bind ctrl-alt-x instead")
            }, "\(modified)")
        #expect(modified.contains { $0.contains("bind “alt-U” instead") }, "\(modified)")
        #expect(said.contains { $0.hasPrefix("config.toml:5: \\u{301} for search:") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("config.toml:6: shift-enter for new: a terminal sends it without") })
        #expect(said.contains { $0.hasPrefix("config.toml:6: shift-1 for new:") }, "\(said)")
        #expect(!said.contains { $0.contains("\u{202E}") || $0.contains("\u{200B}") })
    }

    @Test func aSymbolicLinkThatLeadsNowhereIsNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("config.toml").path
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: path)
        #expect(
            BrowserConfiguration.load(path: path).problems.map(\.description) == [
                "config.toml: is a symbolic link that leads nowhere (a loop, or its target is gone); the defaults apply"
            ])
    }

    @Test func aKeyBoundTwiceInOneModeIsNamed() throws {
        let configuration = BrowserConfiguration.parse(
            """
            [keys.list]
            new = ["x"]
            edit = ["x"]
            """)
        #expect(configuration.problems.count == 1)
        // Left with no key, edit keeps its default and says so (hostile round 8).
        #expect(
            configuration.problems.first?.description
                == "config.toml:3: x for edit is already bound to new at line 2 of [keys.list]; new takes it (of "
                + "two actions given one key, the one the help lists first takes it): edit has no key left, so it "
                + "keeps its default e; give edit another key on line 3, or take x out of new on line 2",
            "\(configuration.problems)")
        #expect(configuration.keys.keys(for: try action(.list, "edit")) == [.character("e")])
    }

    @Test func stylesReadBackAsWritten() {
        for words in ["bold red", "reverse", "underline #ff8800 on 236", "plain", "dim bright-blue on black"] {
            guard case .success(let style) = StyleName.style(named: words) else {
                Issue.record("\(words) did not read")
                continue
            }
            guard case .success(let again) = StyleName.style(named: StyleName.name(of: style)) else {
                Issue.record("\(StyleName.name(of: style)) did not read back")
                continue
            }
            #expect(again == style, "\(words)")
        }
    }

    @Test func theLocationFollowsXDG() {
        #expect(
            BrowserConfiguration.location(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"])
                == "/x/shelf/config.toml")
        #expect(BrowserConfiguration.location(environment: ["HOME": "/h"]) == "/h/.config/shelf/config.toml")
        #expect(
            BrowserConfiguration.location(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"])
                == "/h/.config/shelf/config.toml")
    }

    @Test func helpShowsTheKeysInForce() throws {
        let configuration = BrowserConfiguration.parse("[keys.list]\nnew = [\"a\", \"ctrl-n\"]\n")
        let help = HelpViewModel(keys: configuration.keys)
        let lines = help.sections.flatMap(\.lines)
        #expect(lines.contains(HelpViewModel.Line(keys: "a Ctrl-N", summary: "new item")))
        #expect(!lines.contains(HelpViewModel.Line(keys: "n", summary: "new item")))
        // Every mode has a part, and the filter keeps the lines that match.
        for mode in KeyMode.allCases {
            #expect(help.sections.contains { $0.title.hasPrefix(mode.title(keys: configuration.keys)) }, "\(mode)")
        }
        let found = help.sections(matching: "ctrl-n").flatMap(\.lines)
        #expect(found.contains(HelpViewModel.Line(keys: "a Ctrl-N", summary: "new item")))
        #expect(
            found.allSatisfy { $0.keys.lowercased().contains("ctrl-n") || $0.summary.lowercased().contains("ctrl-n") })
    }

    /// Hostile round 11: an action left with no key by a key it cannot have was named in a
    /// garbled sentence ("…(fg brings it back); bind another key is left out: moveUp has no key
    /// left"): the reason where the key is named, the advice at the end.
    @Test(arguments: ["ctrl-z", "ctrl-m", "ctrl-i", "ctrl-h", "shift-j", "\\u202E"])
    func aRefusedKeyThatLeavesAnActionKeylessIsOneSentence(key: String) throws {
        let configuration = BrowserConfiguration.parse("[keys.list]\nmoveUp = [\"\(key)\"]\n")
        let said = configuration.problems.map(\.description)
        #expect(said.count == 1, "\(said)")
        let message = try #require(said.first)
        #expect(message.hasPrefix("config.toml:2: "), "\(message)")
        #expect(message.contains(" for moveUp is left out because "), "\(message)")
        #expect(message.contains(": moveUp has no key left, so it keeps its defaults"), "\(message)")
        #expect(message.hasSuffix(" for moveUp"), "\(message)")
        // The advice is not followed by "is left out" (the garbled join).
        for advice in ["another key", "instead", "visible key"] {
            #expect(!message.contains("\(advice) is left out"), "\(message)")
        }
        #expect(configuration.keys.keys(for: try action(.list, "moveUp")) == (try action(.list, "moveUp")).defaultKeys)
    }

    /// Hostile round 11: `" "` was an unknown key though a single character is a key: it is
    /// Space, as "space" is.
    @Test func aSpaceIsTheSpaceKey() throws {
        let configuration = BrowserConfiguration.parse("[keys.list]\ntoggleDone = [\" \"]\n")
        #expect(configuration.problems == [], "\(configuration.problems)")
        #expect(configuration.keys.keys(for: try action(.list, "toggleDone")) == [.character(" ")])
        #expect(KeyName.key(named: " ") == KeyName.key(named: "space"))
        // Other white space is no key.
        #expect(KeyName.key(named: "\t") == nil)
    }

    /// Hostile round 11: a value with a raw newline or TAB put them into a one-line
    /// `file:LINE:` message; TOMLKit's own words ("TOML_MAX_NESTED_VALUES", "expected '\n'
    /// after '\r'") were shown as they came.
    @Test func everyProblemIsOneLineInTheHouseStyle() throws {
        let colour = BrowserConfiguration.parse("[colors]\ndone = \"multi\\nline\\tTAB\\u001b[31m\"\n")
        let said = try #require(colour.problems.first?.fullDescription)
        #expect(said.hasPrefix("config.toml:2: done: unknown style word “multi\\nline\\ttab\\u{1B}[31m”"), "\(said)")
        #expect(!said.unicodeScalars.contains { $0.value < 0x20 }, "\(said)")
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        let nested = BrowserConfiguration.parse("[keys.list]\nquit = \(deep)\nhelp = [\"h\"]\n")
        let nestedSaid = nested.problems.map(\.description)
        #expect(nestedSaid.count == 1, "\(nestedSaid)")
        #expect(nestedSaid.first?.hasPrefix("config.toml:2: values nested too deep for TOML to read") == true)
        #expect(nestedSaid.first?.contains("write a flat list") == true, "\(nestedSaid)")
        #expect(!nestedSaid.joined().contains("TOML_MAX"), "\(nestedSaid)")
        #expect(nested.keys.keys(for: try action(.list, "help")) == [.character("h")])
        let carriage = BrowserConfiguration.parse("[keys.list]\nquit = [\"Q\"]\rhelp = [\"h\"]\nnew = [\"a\"]\n")
        let crSaid = carriage.problems.map(\.description)
        #expect(
            crSaid == [
                "config.toml:2: a carriage return (\\r) not followed by a line feed: TOML ends lines with LF or CRLF "
                    + "only; remove it, or save the file with LF or CRLF line ends; line ignored"
            ], "\(crSaid)")
        #expect(carriage.keys.keys(for: try action(.list, "new")) == [.character("a")])
        let other = BrowserConfiguration.parse("[keys.list]\nquit = [\"Q\"\n").problems.map(\.description)
        #expect(other.first?.hasPrefix("config.toml:2: TOML cannot read this line (") == true, "\(other)")
        #expect(other.first?.contains("shelf config --defaults") == true, "\(other)")
        #expect(!other.joined().contains("Error while parsing"), "\(other)")
    }

    /// Hostile round 11: the lines after a table's header that was left out went into the
    /// table before it, where they do not belong.
    @Test func theLinesUnderAnIgnoredHeaderDoNotApply() throws {
        let configuration = BrowserConfiguration.parse(
            "[keys.list]\nquit = [\"Q\"]\n[keys.views\nmoveDown = [\"x\"]\n# a comment\nmoveUp = [\"y\"]\n"
                + "[keys.users]\nmoveDown = [\"z\"]\n")
        #expect(configuration.keys.keys(for: try action(.list, "quit")) == [.character("Q")])
        #expect(
            configuration.keys.keys(for: try action(.list, "moveDown")) == (try action(.list, "moveDown")).defaultKeys)
        #expect(configuration.keys.keys(for: try action(.list, "moveUp")) == (try action(.list, "moveUp")).defaultKeys)
        #expect(configuration.keys.keys(for: try action(.users, "moveDown")) == [.character("z")])
        let said = configuration.problems.map(\.description)
        #expect(said.count == 1, "\(said)")
        #expect(said.first?.hasPrefix("config.toml:3: TOML cannot read this line") == true, "\(said)")
        #expect(
            said.first?.hasSuffix(
                "line ignored, and so are the 2 lines under it up to the next table (read, they would have gone "
                    + "into [keys.list]); correct the header") == true, "\(said)")
        // A table set twice takes its lines along too.
        let twice = BrowserConfiguration.parse(
            "[keys.list]\nquit = [\"Q\"]\n[keys.users]\nmoveDown = [\"z\"]\n[keys.list]\nhelp = [\"h\"]\n")
        // Read, help = ["h"] went into [keys.users] and was named as unknown there.
        #expect(twice.problems.count == 1, "\(twice.problems)")
        // Hostile round 12: in words for someone who never read the TOML spec: which lines,
        // which table, and what to do (the message ended "(read, it would have gone into
        // [keys.users]); move them under the table's first header").
        #expect(
            twice.problems.map(\.description) == [
                "config.toml:5: [keys.list] is written twice: line 1 already starts this table, and a table may "
                    + "have only one header, so this line and the line under it (up to the next header) are "
                    + "ignored; to keep that setting, move it under [keys.list] at line 1 and delete this line; "
                    + "else delete this line and the line under it"
            ], "\(twice.problems)")
        #expect(twice.keys.keys(for: try action(.list, "help")) == (try action(.list, "help")).defaultKeys)
        // Two lines under it, a comment and a blank one not counted; and a second header with
        // nothing under it.
        let more = BrowserConfiguration.parse(
            "[colors]\ndone = \"dim\"\n[keys.list]\nquit = [\"Q\"]\n\n[colors]\n# mine\nowner = \"red\"\n"
                + "date = \"blue\"\n[keys.views]\n[keys.list]\n")
        #expect(
            more.problems.map(\.description) == [
                "config.toml:6: [colors] is written twice: line 1 already starts this table, and a table may have "
                    + "only one header, so this line and the 2 lines under it (up to the next header) are ignored; "
                    + "to keep those settings, move them under [colors] at line 1 and delete this line; else "
                    + "delete this line and the 2 lines under it",
                "config.toml:11: [keys.list] is written twice: line 3 already starts this table, and a table may "
                    + "have only one header, so this line is ignored; delete it (settings for [keys.list] go under "
                    + "line 3)",
            ], "\(more.problems)")
        #expect(more.keys.keys(for: try action(.list, "quit")) == [.character("Q")])
    }

    /// Hostile round 11: `[keys.editor] save = ["enter"]` read as clean, and Enter then saved
    /// from the notes field, which took no new line.
    @Test func aKeyTheNotesUseThemselvesIsNamed() throws {
        let configuration = BrowserConfiguration.parse(
            "[keys.editor]\nsave = [\"enter\"]\nnextField = [\"down\"]\n")
        let said = configuration.problems.map(\.description)
        #expect(
            said == [
                "config.toml:2: enter for save runs in the editor's notes too, where enter starts a new line: there "
                    + "it saves instead; bind save another key, such as ctrl-s",
                "config.toml:3: down for nextField runs in the editor's notes too, where down moves down a line: "
                    + "there it runs nextField instead; bind nextField another key, such as tab",
            ], "\(said)")
        #expect(BrowserConfiguration.parse("[keys.editor]\nsave = [\"ctrl-s\", \"f2\"]\n").problems == [])
    }
}
