import Foundation
import ShelfPresentation
import ShelfTerminal
import Testing

@testable import ShelfBrowser

@Suite("Configuration file")
struct ConfigurationTests {
    private func action(_ mode: KeyMode, _ name: String) throws -> KeyAction {
        try #require(KeyAction.all.first { $0.mode == mode && $0.name == name })
    }

    @Test func theDefaultsFileReadBackChangesNothing() throws {
        let text = BrowserConfiguration.defaultFileText
        let configuration = BrowserConfiguration.parse(text)
        #expect(configuration.problems == [])
        #expect(configuration.keys.isDefault)
        for action in KeyAction.all {
            #expect(configuration.keys.keys(for: action) == action.defaultKeys, "\(action.mode).\(action.name)")
            #expect(text.contains("\n\(action.name) = ["), "\(action.name) is in the file")
        }
        #expect(configuration.palette == Palette())
        #expect(configuration.columns == ItemColumn.defaults)
        // Every line is a comment, a table, a setting or blank: nothing is left to guess.
        for line in text.split(separator: "\n") {
            #expect(line.hasPrefix("#") || line.hasPrefix("[") || line.contains(" = "), "\(line)")
        }
    }

    /// Hostile round 4: `quit = []`, or a quit key misspelled, left the browser with no key
    /// to quit (and `[keys.confirm] no = []` a dialog nothing closed): only a signal got out.
    @Test func aWayOutLeftWithoutAKeyKeepsItsDefaults() throws {
        for text in [
            "[keys.list]\nquit = []", "[keys.list]\nquit = [\"ctl-q\"]", "[keys.list]\nquit = [\"\\u001b[31m\"]",
            "[keys.list]\nquit = [\"j\"]\nmoveDown = [\"j\"]",
        ] {
            let configuration = BrowserConfiguration.parse(text)
            let quit = try action(.list, "quit")
            #expect(configuration.keys.keys(for: quit) == quit.defaultKeys, "\(text)")
            #expect(
                configuration.problems.contains { $0.message.contains("quit is the way out of [keys.list]") },
                "\(text): \(configuration.problems)")
        }
        let dialog = BrowserConfiguration.parse("[keys.confirm]\nyes = []\nno = []\n[keys.help]\nclose = []")
        let no = try action(.confirm, "no")
        #expect(dialog.keys.keys(for: no) == no.defaultKeys)
        #expect(dialog.keys.keys(for: try action(.help, "close")) == (try action(.help, "close")).defaultKeys)
        // Not a way out: `= []` unbinds it on purpose, which is no problem (named at every start,
        // it could not be silenced); the two ways out keep their keys and are named.
        #expect(dialog.keys.keys(for: try action(.confirm, "yes")) == [])
        #expect(dialog.problems.count == 2, "\(dialog.problems)")
        #expect(!dialog.problems.contains { $0.message.contains("yes") }, "\(dialog.problems)")
        // Its default keys bound to another action are given back to it (hostile round 5: with
        // moveDown = ["q", "ctrl-c"] nothing quit).
        let stolen = BrowserConfiguration.parse("[keys.list]\nmoveDown = [\"q\", \"ctrl-c\", \"j\"]")
        #expect(stolen.keys.keys(for: try action(.list, "quit")) == (try action(.list, "quit")).defaultKeys)
        #expect(stolen.keys.keys(for: try action(.list, "moveDown")) == [.character("j")])
        #expect(
            stolen.problems.map(\.description) == [
                "config.toml:2: quit is the way out of [keys.list] and would have no key; it keeps q, ctrl-c"
            ])
        // Esc given to both answers: no keeps it, and the message names the keys it has; yes,
        // left with none, keeps its own defaults.
        let both = BrowserConfiguration.parse("[keys.confirm]\nyes = [\"esc\"]\nno = [\"esc\"]")
        #expect(both.keys.keys(for: no) == no.defaultKeys)
        #expect(both.keys.keys(for: try action(.confirm, "yes")) == (try action(.confirm, "yes")).defaultKeys)
        // Bound to another key, a way out is fine.
        let rebound = BrowserConfiguration.parse("[keys.list]\nquit = [\"ctrl-q\"]")
        #expect(rebound.problems == [])
        #expect(rebound.keys.keys(for: try action(.list, "quit")) == [.control("q")])
    }

    /// Hostile round 8: `yes` given every key of `no` was named only as no's loss, and
    /// `help = ["banana"]` left help with no key and no word of it. Every action the file
    /// leaves with no key is named at its line, with its fallback or how to reach it.
    @Test func everyActionLeftWithoutAKeyIsNamed() throws {
        let yes = try action(.confirm, "yes")
        let taken = BrowserConfiguration.parse("[keys.confirm]\nyes = [\"n\", \"N\", \"esc\", \"q\"]\n")
        #expect(taken.keys.keys(for: yes) == yes.defaultKeys)
        #expect(
            taken.problems.map(\.description) == [
                "config.toml:2: no is the way out of [keys.confirm] and would have no key; it keeps n, N, esc, q",
                "config.toml:2: n, N, esc and q stay with no, the way out of [keys.confirm]: yes has no key left, "
                    + "so it keeps its defaults y, Y, enter",
            ], "\(taken.problems)")
        let help = try action(.list, "help")
        let unknown = BrowserConfiguration.parse("[keys.list]\nmoveDown = [\"j\"]\nhelp = [\"banana\"]\n")
        #expect(unknown.keys.keys(for: help) == help.defaultKeys)
        #expect(
            unknown.problems.map(\.description) == [
                "config.toml:3: unknown key “banana” for help is left out: help has no key left, so it keeps its "
                    + "defaults ?, f1"
            ], "\(unknown.problems)")
        // Its defaults taken too: nothing runs it, and the file must give it a key.
        let lost = BrowserConfiguration.parse("[keys.list]\nhelp = [\"banana\"]\nusers = [\"?\", \"f1\"]\n")
        #expect(lost.keys.keys(for: help) == [])
        #expect(
            lost.problems.contains {
                $0.line == 2
                    && $0.message.hasSuffix(
                        "help has no key left and its defaults (?, f1) are taken, so nothing runs it; give it a free "
                            + "key in [keys.list], such as help = [\"KEY\"]")
            }, "\(lost.problems)")
        // Two actions given one key: the one bound later keeps a default of its own.
        let clash = BrowserConfiguration.parse("[keys.list]\nmoveDown = [\"k\"]\nmoveUp = [\"k\"]\n")
        #expect(clash.keys.keys(for: try action(.list, "moveUp")) == [KeyEvent(.up)])
        #expect(
            clash.problems.map(\.description) == [
                "config.toml:3: k for moveUp is already bound to moveDown at line 2 of [keys.list]; moveDown takes "
                    + "it (of two actions given one key, the one the help lists first takes it): moveUp has no key "
                    + "left, so it keeps its default up; give moveUp another key on line 3, or take k out of "
                    + "moveDown on line 2"
            ], "\(clash.problems)")
        // Hostile round 11: bound the other way round, moveDown (the later line) still takes it,
        // and the message no longer says it was "bound before". Hostile round 12: the clash is
        // named at the line that made it, the later one, with the earlier binding (it was
        // named at line 2, as if moveUp's line were the one to change).
        let reversed = BrowserConfiguration.parse("[keys.list]\nmoveUp = [\"x\"]\nmoveDown = [\"x\"]\n")
        #expect(reversed.keys.keys(for: try action(.list, "moveDown")) == [.character("x")])
        #expect(
            reversed.problems.map(\.description) == [
                "config.toml:3: x for moveDown is already bound to moveUp at line 2 of [keys.list]; moveDown takes "
                    + "it (of two actions given one key, the one the help lists first takes it): moveUp has no key "
                    + "left, so it keeps its defaults k, up; give moveDown another key on line 3, or take x out of "
                    + "moveUp on line 2"
            ], "\(reversed.problems)")
        // Each keeping another key: named at the later line too, with what the loser keeps.
        let kept = BrowserConfiguration.parse(
            "[keys.list]\nmoveUp = [\"x\", \"up\"]\n\nmoveDown = [\"x\", \"down\"]\n")
        #expect(
            kept.problems.map(\.description) == [
                "config.toml:4: x for moveDown is already bound to moveUp at line 2 of [keys.list]; moveDown takes "
                    + "it (of two actions given one key, the one the help lists first takes it): moveUp keeps up; "
                    + "give moveDown another key on line 4, or take x out of moveUp on line 2"
            ], "\(kept.problems)")
        // A top-level key is not a section.
        let topLevel = BrowserConfiguration.parse("quit = 1\n")
        #expect(
            topLevel.problems.map(\.message) == ["“quit” is a setting outside any section; ignored"],
            "\(topLevel.problems)")
        // Every action of every mode, given only an unknown key, is left with a key and named.
        for action in KeyAction.all {
            let configuration = BrowserConfiguration.parse(
                "[keys.\(action.mode.rawValue)]\n\(action.name) = [\"banana\"]\n")
            #expect(!configuration.keys.keys(for: action).isEmpty, "\(action.mode).\(action.name)")
            #expect(configuration.problems.count == 1, "\(action.mode).\(action.name): \(configuration.problems)")
            #expect(configuration.problems.first?.line == 2)
        }
    }

    /// Hostile round 8: `[keys.help] close = ["q"]` was named twice, as a key left out and as
    /// a way out with no key; one problem, named once.
    @Test func aWayOutWhoseKeysAreLeftOutIsNamedOnce() throws {
        let configuration = BrowserConfiguration.parse("[keys.help]\nclose = [\"q\"]\n")
        #expect(configuration.keys.keys(for: try action(.help, "close")) == (try action(.help, "close")).defaultKeys)
        #expect(configuration.problems.count == 1, "\(configuration.problems)")
        #expect(
            configuration.problems.first?.description
                == "config.toml:2: q for close: it types text in [keys.help], so it could not be typed; bind a key "
                + "with ctrl- or alt-; left out, so close is the way out of [keys.help] and would have no key; it "
                + "keeps esc, f1")
    }

    /// Hostile round 8: TOMLKit's word on a key set twice echoed it garbled (`'"hehelp" '`);
    /// the key is named as the file writes it, with the line that set it first. An escaped key
    /// is found at its own line, not its table's.
    @Test func aKeySetTwiceIsNamedAsTheFileWritesIt() throws {
        let configuration = BrowserConfiguration.parse(
            "[keys.list]\n\"he\\u006cp\" = [\"x\"]\n\"help\" = [\"y\"]\n\"b\\u0041d\" = [\"z\"]\n[keys.list]\n")
        #expect(
            configuration.problems.map(\.description) == [
                "config.toml:3: the key \"help\" in [keys.list] is already set at line 2; TOML allows a key once in "
                    + "a table; line ignored",
                "config.toml:4: unknown action “bAd” in [keys.list]; ignored",
                "config.toml:5: [keys.list] is written twice: line 1 already starts this table, and a table may "
                    + "have only one header, so this line is ignored; delete it (settings for [keys.list] go under "
                    + "line 1)",
            ], "\(configuration.problems)")
        #expect(configuration.keys.keys(for: try action(.list, "help")) == [.character("x")])
        #expect(TOMLLineKey(#"  "a\u0041\t\\\"b" = 1"#).parts == ["aA\t\\\"b"])
        #expect(TOMLLineKey(#"  "a\u0041" . 'x\y' = 1"#).written == #""a\u0041" . 'x\y'"#)
    }

    /// Hostile round 8: `[keys.list.deep.deeper]` was named at `[keys.list]`'s line.
    @Test func aDeeperTableIsNamedAtItsOwnLine() {
        let configuration = BrowserConfiguration.parse(
            "[keys.list]\nquit = [\"q\"]\n\n[keys.list.deep.deeper]\nx = 1\n[keys.views]\na.b = 1\n")
        #expect(
            configuration.problems.map(\.description) == [
                "config.toml:4: unknown action “deep” in [keys.list]; ignored",
                "config.toml:7: unknown action “a” in [keys.views]; ignored",
            ], "\(configuration.problems)")
    }

    @Test func everyDefaultKeyNameReadsBackAsItsKey() {
        for action in KeyAction.all {
            for key in action.defaultKeys {
                #expect(KeyName.key(named: KeyName.name(of: key)) == key, "\(KeyName.name(of: key))")
                #expect(KeyName.key(named: key.description) == key, "help's name \(key.description)")
            }
        }
        #expect(KeyName.key(named: "Ctrl-N") == .control("n"))
        #expect(KeyName.key(named: "shift-tab") == KeyEvent(.tab, modifiers: .shift))
        #expect(KeyName.key(named: "jump") == nil)
        #expect(KeyName.key(named: "ctrl-1") == nil)
    }

    @Test func boundKeysReplaceTheDefaultsAndFreeThem() throws {
        let configuration = BrowserConfiguration.parse(
            """
            [keys.list]
            moveDown = ["ctrl-n"]
            moveUp = ["j"]
            """)
        #expect(configuration.problems == [])
        let keys = configuration.keys
        #expect(keys.keys(for: try action(.list, "moveDown")) == [.control("n")])
        // Controllers see the action's first default key.
        #expect(keys.translate(.control("n"), modes: [.list]) == .character("j"))
        #expect(keys.translate(.character("j"), modes: [.list]) == .character("k"))
        // k is moveUp's default no longer: it does nothing; ↓ was moveDown's.
        #expect(keys.translate(.character("k"), modes: [.list]) == nil)
        #expect(keys.translate(KeyEvent(.down), modes: [.list]) == nil)
        // Other modes keep their keys; typed text stays text.
        #expect(keys.translate(.character("k"), modes: [.users]) == .character("k"))
        #expect(keys.translate(.character("k"), modes: [.text, .search]) == .character("k"))
        #expect(keys.translate(.character("x"), modes: [.list]) == .character("x"))
    }

    @Test func eachWrongPartIsNamedWithItsLineAndTheRestApplies() throws {
        let configuration = BrowserConfiguration.parse(
            """
            [keys.list]
            moveDown = ["ctrl-n"]
            jump = ["J"]
            quit = ["kwit"]
            this line is not TOML
            help = ["h"]

            [keys.nowhere]
            x = ["x"]

            [colors]
            priority = "bold green"
            owner = "sparkly"

            [list]
            columns = ["title", "when", "owner"]

            [list.widths]
            owner = 30
            """, file: "config.toml")
        let problems = configuration.problems.map(\.description)
        #expect(problems.count == 6, "\(problems)")
        #expect(
            problems.contains { $0.hasPrefix("config.toml:3: unknown action “jump” in [keys.list]") }, "\(problems)")
        // The key left out and the way out it leaves without a key: one problem.
        #expect(
            problems.contains {
                $0.hasPrefix(
                    "config.toml:4: unknown key “kwit” for quit; left out, so quit is the way out of [keys.list]")
            }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("config.toml:5: ") && $0.hasSuffix("line ignored") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("config.toml:8: unknown mode “nowhere”") }, "\(problems)")
        #expect(
            problems.contains { $0.hasPrefix("config.toml:13: owner: unknown style word “sparkly”") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("config.toml:16: unknown column “when”") }, "\(problems)")
        // What was right applies: the bindings around the bad lines, the colour, the columns.
        #expect(configuration.keys.keys(for: try action(.list, "moveDown")) == [.control("n")])
        #expect(configuration.keys.keys(for: try action(.list, "help")) == [.character("h")])
        #expect(configuration.palette.priority == Style(foreground: .green, attributes: .bold))
        #expect(configuration.palette.owner == Palette().owner)
        #expect(configuration.columns == [ItemColumn(.title, width: 12), ItemColumn(.owner, width: 30)])
    }

    @Test func anUnknownColumnIsNamed() {
        let configuration = BrowserConfiguration.parse(
            """
            [list]
            columns = ["title", "when"]
            """)
        #expect(
            configuration.problems.map(\.fullDescription) == [
                "config.toml:2: unknown column “when”; left out (known: done, priority, title, owner, updated)"
            ])
        #expect(configuration.columns == [ItemColumn(.title, width: 12)])
    }

    @Test(arguments: ["columns = []", "columns = [\"when\"]"])
    func aListOfNoKnownColumnShowsTheTitleAndSaysSo(line: String) {
        let configuration = BrowserConfiguration.parse("[list]\n\(line)\n")
        #expect(configuration.columns == [ItemColumn(.title, width: 12)])
        #expect(
            configuration.problems.map(\.description).contains(
                "config.toml:2: list.columns names no column it knows; the title is shown alone"))
    }

    @Test func aConfigurationThatIsNotAFileIsNamedAndTheDefaultsApply() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "shelf-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A FIFO: reading it would wait for a writer forever; it is named instead.
        let fifo = directory.appendingPathComponent("config.toml").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let fromFIFO = BrowserConfiguration.load(path: fifo)
        #expect(fromFIFO.columns == ItemColumn.defaults)
        #expect(
            fromFIFO.problems.map(\.description) == [
                "config.toml: is a FIFO (a named pipe), not a file; the defaults apply "
                    + "(replace it with a TOML file, or remove it)"
            ])
        // A device that never ends.
        #expect(
            BrowserConfiguration.load(path: "/dev/zero").problems.map(\.description) == [
                "zero: is a device, not a file; the defaults apply (replace it with a TOML file, or remove it)"
            ])
        // A directory.
        #expect(
            BrowserConfiguration.load(path: directory.path).problems.first?.description.contains(
                "is a directory, not a file") == true)
        // A file far larger than any configuration.
        let huge = directory.appendingPathComponent("huge.toml")
        try Data(count: BrowserConfiguration.maximumFileSize + 1).write(to: huge)
        #expect(
            BrowserConfiguration.load(path: huge.path).problems.map(\.description) == [
                "huge.toml: is 1048577 bytes, more than a configuration file's 1048576; the defaults apply "
                    + "(is this the right file?)"
            ])
    }

    /// Hostile round 13: a configuration file that is a symbolic link (as dotfile managers make
    /// them) was refused as "a FIFO or other special file" whatever it led to, /proc/kallsyms
    /// too. A link is followed; a file of /proc, which `stat` says is empty, is read up to the
    /// bound and no further, and named for what it is.
    @Test func aLinkIsFollowedAndAGeneratedFileIsReadToTheBound() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("dotfiles.toml")
        try Data("[list]\ncolumns = [\"title\"]\n".utf8).write(to: target)
        let path = folder.appendingPathComponent("config.toml").path
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target.path)
        let linked = BrowserConfiguration.load(path: path)
        #expect(linked.problems == [])
        #expect(linked.columns == [ItemColumn(.title, width: 12)])

        // Generated as it is read, and megabytes long (this process's page map; /proc/kallsyms
        // is so too): refused after 1 MiB + 1 bytes, and named so.
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/proc/self/pagemap")
        #expect(
            BrowserConfiguration.load(path: path).problems.map(\.description) == [
                "config.toml: is a file made as it is read (stat says 0 bytes, as for the files of /proc and /sys), "
                    + "longer than a configuration file's 1048576 bytes; the defaults apply (is this the right file?)"
            ])
        // Generated and short: read (it is not TOML, and is named line by line as such).
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/proc/self/status")
        let status = BrowserConfiguration.load(path: path).problems
        #expect(!status.isEmpty && status.allSatisfy { $0.line != nil }, "\(status)")
        // A link to a FIFO is named as such.
        let fifo = folder.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: fifo)
        #expect(
            BrowserConfiguration.load(path: path).problems.map(\.description) == [
                "config.toml: is a symbolic link to a FIFO (a named pipe), not a file; the defaults apply "
                    + "(replace it with a TOML file, or remove it)"
            ])
    }

    /// Hostile round 13: the check for keys of too many dotted parts counted every dot of a
    /// table's header line, its comment's too, and dropped `[keys.list] # see a.b.c…`.
    /// Only the key's dots count, and a quoted part's dots are not the key's.
    @Test func onlyTheKeysOwnDotsCount() throws {
        let dots = String(repeating: ".", count: 100)
        let configuration = BrowserConfiguration.parse(
            """
            [keys.list] # see \(dots)
            quit = ["Q"] # \(dots)
            [colors]
            "\(dots)" = "red"
            """)
        #expect(configuration.keys.keys(for: try action(.list, "quit")) == [.character("Q")])
        #expect(
            configuration.problems.map(\.description) == ["config.toml:4: unknown colour role “\(dots)”; ignored"])
        // A key of many parts is still left out, quoted or not, header or not.
        let deep = Array(repeating: "\"a.b\"", count: 70).joined(separator: " . ")
        let refused = BrowserConfiguration.parse("[\(deep)]\nx = 1\n\(deep) = 1\n[list]\ncolumns = [\"title\"]\n")
        #expect(refused.columns == [ItemColumn(.title, width: 12)])
        #expect(
            refused.problems.map(\.description).filter { $0.contains("dotted") } == [
                // Its `x = 1` went to the top level: it is left out with it (hostile round 11).
                "config.toml:1: a key of more than 64 dotted parts; line ignored, and so is the line under it up "
                    + "to the next table (read, it would have gone into the top level, outside any table); correct "
                    + "the header",
                "config.toml:3: a key of more than 64 dotted parts; line ignored",
            ], "\(refused.problems)")
        #expect(TOMLLineKey("[keys . \"a.b\".'c.d'] # x.y").parts == ["keys", "a.b", "c.d"])
        #expect(TOMLLineKey("  moveDown = [\"j\"] # a.b").isAssignment)
    }
}
