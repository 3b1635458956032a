import Foundation
import ShelfTestSupport
import Testing

/// Hostile round 13 (issue 26): what the browser's feet and status bar say, through the real
/// binary in tmux: the keys that work where the keys go, a dialog's hint that fits, a key the
/// configuration took from another action, and a copy's failure read whole.
@Suite("shelf browse: hints and long messages", .serialized)
struct BrowseHintsTests {
    private func prepare(_ shelf: ShelfProcess, config: String) async throws -> [String: String] {
        try await prepareConfiguredStore(shelf, config: config)
    }

    private func browse(_ shelf: ShelfProcess, environment: [String: String], width: Int) throws -> TmuxSession {
        try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(shelf.databasePath), width: width,
            height: 20, environment: environment)
    }

    /// The status bar's lines, from the last line of `screen` up to the last line of the list
    /// (or detail) above it: the bar takes more than one line for a long message.
    private func statusBar(_ screen: [String], lines: Int) -> String {
        let shown = Array(screen.reversed().drop { $0.isEmpty }.prefix(lines).reversed())
        return shown.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// The search field showed the list's keys at the foot ("? help  n new  q quit"), which type
    /// text there; an item opened on the whole screen had no word of the key back; and
    /// `help = ["j"]` took j from moveDown without a word. The foot names the keys that work, as
    /// bound; the taken key is named once, whole, in the status bar and after quitting.
    @Test func theFootNamesTheKeysThatWorkAndATakenKeyIsNamed() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let environment = try await prepare(
            shelf,
            config: """
                [keys.list]
                help = ["j"]
                [keys.search]
                clear = ["ctrl-g"]
                [keys.detail]
                back = ["b"]
                """)
        let path = environment["XDG_CONFIG_HOME"]! + "/shelf/config.toml"
        let tmux = try browse(shelf, environment: environment, width: 100)
        var screen = try await tmux.waitFor {
            $0.contains(line: "Third task") && $0.contains(line: "j shows it whole")
        }
        // On the bar's one line until the first key (hostile round 12: whole, over lines of the
        // bar, it pushed the list up), cut with where it is read whole, naming help's key in force.
        let bar0 = screen.last { !$0.isEmpty } ?? ""
        #expect(
            bar0.hasPrefix(" config.toml:2: j for help took a key of moveDown")
                && bar0.contains("… j shows it whole ") && bar0.hasSuffix("j help  n new  q quit"),
            "\(screen.joined(separator: "\n"))")

        // The search field: its own keys, as bound; none of the list's letters.
        try tmux.type("/")
        screen = try await tmux.waitFor { $0.last { !$0.isEmpty }?.contains("Ctrl-G clear") == true }
        var bar = screen.last { !$0.isEmpty } ?? ""
        #expect(bar.hasSuffix("Enter keep  Ctrl-G clear  ↓ list"), "\(screen.joined(separator: "\n"))")
        #expect(!bar.contains("q quit") && !bar.contains("n new") && !screen.contains(line: "config.toml"))
        try tmux.type("Second")
        try await tmux.waitFor("1 item")
        try tmux.send("C-g")
        screen = try await tmux.waitFor {
            $0.last { !$0.isEmpty }?.hasSuffix("j help  n new  q quit") == true && $0.contains(line: "3 items")
        }
        #expect(screen.contains(line: "3 items"), "\(screen.joined(separator: "\n"))")

        // An item opened on the whole screen: the way back first.
        try tmux.send("Enter")
        screen = try await tmux.waitFor { $0.last { !$0.isEmpty }?.hasSuffix("b back  j help") == true }
        bar = screen.last { !$0.isEmpty } ?? ""
        #expect(bar.hasSuffix("b back  j help"), "\(screen.joined(separator: "\n"))")
        try tmux.type("b")
        try await tmux.waitFor { $0.last { !$0.isEmpty }?.hasSuffix("j help  n new  q quit") == true }

        try tmux.type("q")
        screen = try await tmux.waitFor("[exit 0]")
        let text = screen.joined(separator: "")
        #expect(
            text.contains("shelf: \(path):2: j for help took a key of moveDown"), "\(screen.joined(separator: "\n"))")
    }

    /// The item editor's hint was cut ("… · Tab next · E…") at 120 and 200 columns: its dialog
    /// is 72 wide whatever the screen. At 80, 120 and 200 columns it fits, naming the keys in
    /// force.
    @Test func theEditorsHintFitsAt80And120And200Columns() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let environment = try await prepare(shelf, config: "[keys.editor]\nsave = [\"ctrl-w\"]\n")
        let tmux = try browse(shelf, environment: environment, width: 80)
        // The bar says the file's problem (Ctrl-W is deleteWord's in the text fields) on its one
        // line, the count cut off: the rows say the list is read.
        try await tmux.waitFor { $0.contains(line: "Third task") && $0.contains(line: "shows it whole") }
        try tmux.type("n")
        try await tmux.waitFor("New item")
        for _ in 0..<4 { try tmux.send("Tab") }  // to the notes, whose hint is the longest
        let hint = "Enter new line · Ctrl-W save · Ctrl-O $EDITOR · Tab next · Esc cancel"
        // The four Tabs taken (the dialog showed before they were, and the title's hint was read).
        try await tmux.waitFor { $0.contains(line: hint) }
        for width in [80, 120, 200] {
            try tmux.resize(width: width, height: 20)
            // Drawn again at this width: the dialog (72 wide) centred in it.
            let left = (width - 72) / 2
            // A frame is read whole: tmux can be captured while the frame is half written (CI,
            // load ~15, caught the top border drawn and the hint's line not yet), so the wait is
            // for the border and the hint's line both; a hint cut short never shows and fails.
            let screen = try await tmux.waitFor {
                $0.contains { $0.dropFirst(left).hasPrefix("┌─ New item") } && $0.contains { $0.contains(hint + " │") }
            }
            let line = screen.first { $0.contains(hint) } ?? ""
            // Whole, and inside the box: its right border follows.
            #expect(line.contains(hint + " │"), "\(width): \(screen.joined(separator: "\n"))")
        }
        try tmux.send("Escape")
        try await tmux.waitFor { !$0.contains(line: "New item") }
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }

    /// A TMPDIR that does not exist sent the clipboard's file to /tmp without a word; and the
    /// message of a failed copy was cut at the status bar's end. The copy is refused, and the
    /// message is read whole, over the lines it needs, until the next key.
    @Test func aTMPDIRThatIsNoFolderRefusesTheCopyAndSaysSoWhole() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        var environment = try await prepare(shelf, config: "")
        let missing = "/nonexistent-\(UUID().uuidString.prefix(8))/shelf"
        environment["TMPDIR"] = missing
        environment["SHELF_CLIPBOARD"] = "file"
        let tmux = try browse(shelf, environment: environment, width: 80)
        try await tmux.waitFor { $0.contains(line: "3 items") && $0.contains(line: "Third task") }
        try tmux.type("y")
        var screen = try await tmux.waitFor(timeout: .seconds(30)) {
            $0.contains(line: "Could not copy") && $0.contains(line: "or unset it")
        }
        let message =
            "Could not copy: TMPDIR \(missing) does not exist; set it to a folder you can write, or unset it"
        let bar = statusBar(screen, lines: 3)
        #expect(
            bar.replacingOccurrences(of: " ", with: "").contains(message.replacingOccurrences(of: " ", with: "")),
            "\(screen.joined(separator: "\n"))")
        #expect(!screen.contains(line: "copied"))
        // The next key: one line again (the message cut there).
        try tmux.send("Down")
        screen = try await tmux.waitFor { !$0.contains(line: "or unset it") }
        #expect(!screen.contains(line: "or unset it"), "\(screen.joined(separator: "\n"))")
        #expect(screen.last { !$0.isEmpty }?.contains("Could not copy: TMPDIR") == true)
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }

    /// Hostile round 8: at 80 columns a copy's "not UTF-8" failure ended before the `sqlite3 …
    /// UPDATE` that fixes it, and nothing said it again after the browser quit. The message
    /// takes up to half the screen; cut there, its end says where it is read whole (the help
    /// shows the session's failures whole); and every failure is said again on standard error.
    @Test func aFailureTooLongForTheBarKeepsItsAdviceAndIsSaidAgainAfterQuitting() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        var environment = try await prepare(shelf, config: "")
        environment["SHELF_CLIPBOARD"] = "file"
        environment["XDG_RUNTIME_DIR"] = shelf.folder.path
        let status = try await ChildProcess.sqlite3(
            shelf.databasePath, "UPDATE items SET title = CAST(X'41FF42' AS TEXT) WHERE title = 'Third task';")
        #expect(status == 0)
        for height in [24, 10] {
            let tmux = try TmuxSession(
                ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(shelf.databasePath), width: 80,
                height: height, environment: environment)
            try await tmux.waitFor { $0.contains(line: "3 items") && $0.contains(line: "First task") }
            try tmux.type("g")
            try tmux.type("y")
            var screen = try await tmux.waitFor(timeout: .seconds(30)) { $0.contains(line: "Could not copy") }
            let bar = screen.joined(separator: "\n")
            if height == 24 {
                // Whole, the advice included.
                screen = try await tmux.waitFor { $0.contains(line: "then try again") }
                #expect(screen.contains(line: "then try again"), "\(bar)")
                #expect(Self.words(screen).contains("'UPDATE items SET title = "), "\(bar)")
            } else {
                // Cut at half the screen, saying where it is read whole; there it is.
                screen = try await tmux.waitFor { $0.contains(line: "? shows it whole") }
                #expect(screen.contains(line: "? shows it whole"), "\(screen.joined(separator: "\n"))")
                try tmux.type("?")
                screen = try await tmux.waitFor { $0.contains(line: "Messages (the last first)") }
                var help = Self.words(screen.map { $0.replacingOccurrences(of: "│", with: " ") })
                // The help's box is short here: its next page holds the rest of the message.
                try tmux.send("PageDown")
                screen = try await tmux.waitFor { !$0.contains(line: "Messages (the last first)") }
                help += " " + Self.words(screen.map { $0.replacingOccurrences(of: "│", with: " ") })
                #expect(help.contains("• Could not copy") && help.contains("'UPDATE items SET title"), "\(help)")
                #expect(help.contains("then try again"), "\(help)")
                try tmux.send("Escape")
                try await tmux.waitFor { !$0.contains(line: "┌─ Keys") }
            }
            // After quitting, on standard error, whole.
            try tmux.type("q")
            screen = try await tmux.waitFor("[exit 0]")
            let after = screen.joined(separator: "")
            #expect(after.contains("shelf: Could not copy: items row"), "\(screen.joined(separator: "\n"))")
            #expect(after.contains("UPDATE items SET title") && after.contains("then try again"), "\(after)")
        }
    }

    /// The screen's words, lines joined and spaces collapsed: a message wrapped over lines
    /// reads as one.
    private static func words(_ screen: [String]) -> String {
        screen.joined(separator: " ").split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// Issue 26: `[keys.editor] save = ["ctrl-a"]` never saved from the editor's fields (the
    /// text keys' lineStart has Ctrl-A first) and nothing said so. It is named, whole, in the
    /// status bar, after quitting and by `shelf config`; and Ctrl-A still goes to the line's start.
    @Test func aKeyATextKeyTakesFirstIsNamed() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let environment = try await prepare(shelf, config: "[keys.editor]\nsave = [\"ctrl-a\"]\n")
        let path = environment["XDG_CONFIG_HOME"]! + "/shelf/config.toml"
        let notice =
            "config.toml:2: ctrl-a for save runs only in the editor's status field: lineStart of [keys.text] "
            + "takes it first in the editor's text fields and notes; bind save another key, or lineStart others"
        let check = try await shelf.run(["config"], environment: environment)
        #expect(check.status == 1)
        #expect(check.output.contains(notice), "\(check.output)")

        let tmux = try browse(shelf, environment: environment, width: 80)
        var screen = try await tmux.waitFor {
            $0.contains(line: "Third task") && $0.contains(line: "? shows it whole")
        }
        // On the bar's one line until the first key, cut with where it is read whole (hostile
        // round 12: over four lines it pushed the list up); whole in the help.
        let bar = screen.last { !$0.isEmpty } ?? ""
        #expect(
            bar.hasPrefix(" config.toml:2: ctrl-a for save") && bar.contains("… ? shows it whole")
                && !screen.contains(line: "or lineStart others"), "\(screen.joined(separator: "\n"))")
        // In the title field Ctrl-A is the line's start: typed there, the text goes first.
        try tmux.type("n")
        try await tmux.waitFor("New item")
        try tmux.type("task")
        try tmux.send("C-a")
        try tmux.type("A ")
        screen = try await tmux.waitFor { $0.contains { $0.contains("A task") } }
        #expect(screen.contains(line: "New item"), "not saved: \(screen.joined(separator: "\n"))")
        try tmux.send("Escape")
        try await tmux.waitFor { !$0.contains(line: "New item") }
        try tmux.type("q")
        screen = try await tmux.waitFor("[exit 0]")
        #expect(
            screen.joined(separator: "").contains("shelf: \(path):2: ctrl-a for save runs only in"),
            "\(screen.joined(separator: "\n"))")
    }

    /// Issue 26: the saved views' delete question was cut at 80 and 120 columns before its keys
    /// (a long name: "Delete “The open items of everyone…" and no word of y or n); the users
    /// view's hint lost its way back at 60 columns with keys rebound; the question before a
    /// user's removal lost its last line ("This cannot be undone.") at 60. At 60, 80 and 120
    /// columns each fits: the least needed hints left out, the way out and the main action whole.
    @Test func theDialogsHintsFitAt60And80And120Columns() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let environment = try await prepare(
            shelf, config: "[keys.users]\nedit = [\"ctrl-e\"]\ndelete = [\"ctrl-d\"]\nclose = [\"ctrl-q\"]\n")
        let db = shelf.databasePath
        let email = "maximiliana.konstantinopolous-wetherington@a-very-long-domain-name.example.com"
        #expect(
            try await shelf.run([
                "users", "add", "--db", db, "--name", "Maximiliana Konstantinopolous-Wetherington", "--email", email,
            ]).status == 0)
        let name = "The open items of everyone on the night shift, newest first, including archived ones"
        #expect(try await shelf.run(["views", "save", "--db", db, name, "--query", "task"]).status == 0)
        let tmux = try browse(shelf, environment: environment, width: 60)
        try await tmux.waitFor { $0.contains(line: "3 items") && $0.contains(line: "Third task") }
        for width in [60, 80, 120] {
            try tmux.resize(width: width, height: 24)
            // Drawn again at this width: the status bar's keys end at its last column but one.
            try await tmux.waitFor { $0.contains { $0.count >= width - 2 && $0.contains("3 items") } }
            // The users view: its way back and adding kept whole, inside the box.
            try tmux.type("U")
            var screen = try await tmux.waitFor { $0.contains(line: "Maximiliana") && $0.contains(line: "back") }
            let hint = screen.first { $0.contains(" add · ") } ?? ""
            #expect(
                hint.contains("a add · ") && hint.contains("Enter their items · Ctrl-Q back "),
                "\(width): \(screen.joined(separator: "\n"))")
            #expect(!hint.contains("…"), "\(width): \(hint)")
            // The removal's question whole, its keys under it (Maximiliana's, the longer).
            try tmux.type("j")
            try tmux.send("C-d")
            screen = try await tmux.waitFor {
                $0.contains(line: "Remove user") && $0.contains(line: "n / Esc: cancel")
                    && $0.contains(line: "Remove Maximiliana")
            }
            #expect(screen.contains(line: "undone."), "\(width): \(screen.joined(separator: "\n"))")
            try tmux.type("n")
            try await tmux.waitFor { !$0.contains(line: "Remove user") }
            try tmux.send("C-q")
            try await tmux.waitFor { !$0.contains(line: "Maximiliana") }
            // The saved views: the question cut before its keys, which show whole.
            try tmux.type("v")
            // Its row read (the foot shows while the views are still read, and d did nothing then).
            try await tmux.waitFor { $0.contains(line: "Saved views") && $0.contains(line: "│The open items") }
            try tmux.type("d")
            screen = try await tmux.waitFor { $0.contains(line: "Delete “The open") }
            let question = screen.first { $0.contains("Delete “") } ?? ""
            #expect(
                question.contains("y / Enter: delete    n / Esc: keep it"),
                "\(width): \(screen.joined(separator: "\n"))")
            try tmux.type("n")
            try await tmux.waitFor { $0.contains(line: "Esc close") }
            try tmux.send("Escape")
            try await tmux.waitFor { !$0.contains(line: "Saved views") }
        }
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }
}
