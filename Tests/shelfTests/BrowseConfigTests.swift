import Foundation
import ShelfTestSupport
import Testing

/// The browser's configuration file through the real binary in tmux.
@Suite("shelf browse with a config.toml", .serialized)
struct BrowseConfigTests {
    private func prepare(_ shelf: ShelfProcess, config text: String) async throws -> [String: String] {
        try await prepareConfiguredStore(shelf, config: text)
    }

    private func browse(_ shelf: ShelfProcess, environment: [String: String], width: Int = 100) throws -> TmuxSession {
        try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(shelf.databasePath), width: width,
            height: 20, environment: environment)
    }

    @Test func keysColumnsAndColoursApplyAndEachProblemIsNamedOnce() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let environment = try await prepare(
            shelf,
            config: """
                [keys.list]
                moveDown = ["ctrl-n"]
                jump = ["J"]
                this is not TOML
                new = ["a"]

                [list]
                columns = ["title", "owner"]

                [colors]
                owner = "bold green"
                """)
        let path = environment["XDG_CONFIG_HOME"]! + "/shelf/config.toml"
        let tmux = try browse(shelf, environment: environment, width: 130)
        // The first problem in the status bar, with its line; the columns as configured.
        var screen = try await tmux.waitFor {
            $0.contains(line: "more after quitting") && $0.contains(line: "Third task")
        }
        // In the status bar's one line, with the keys' hints.
        let bar = screen.last { !$0.isEmpty } ?? ""
        #expect(
            bar.contains("config.toml:3: unknown action “jump” in [keys.list]; ignored (+1 more after quitting)")
                && bar.hasSuffix("a new  q quit"), "\(screen.joined(separator: "\n"))")
        let header = try #require(screen.first { $0.contains("Title") })
        #expect(header.contains("Owner") && !header.contains("Pri") && !header.contains("Updated"), "\(header)")
        // The owner column in bold green (SGR 1 and 32) around the name.
        let styled = try tmux.captureStyled()
        #expect(
            styled.contains("\u{1B}[1;32mAda Lovelace") || styled.contains("\u{1B}[32;1mAda Lovelace")
                || styled.contains("\u{1B}[1m\u{1B}[32mAda Lovelace"), "\(styled.debugDescription)")

        // Ctrl-N moves down; j, freed, does nothing; the first key cleared the notice.
        try tmux.send("C-n")
        screen = try await tmux.waitFor("2/3 ·")
        #expect(!screen.contains(line: "config.toml:"), "said once")
        try tmux.type("j")
        try tmux.type("?")
        try await tmux.waitFor("┌─ Keys")
        screen = try tmux.capture()
        #expect(!screen.contains(line: "3/3 ·"))
        // The help shows the keys in force: a for new, Ctrl-N for next.
        try tmux.type("new item")
        screen = try await tmux.waitFor { $0.contains { $0.contains("  a ") && $0.contains("new item") } }
        #expect(screen.contains { $0.contains("  a ") && $0.contains("new item") }, "\(screen.joined(separator: "\n"))")
        try tmux.send("Escape")
        try tmux.send("Escape")
        try await tmux.waitFor { !$0.contains(line: "┌─ Keys") }
        // a opens the new-item editor; Esc closes it.
        try tmux.type("a")
        try await tmux.waitFor("New item")
        try tmux.send("Escape")
        try await tmux.waitFor { !$0.contains(line: "New item") }

        // After quitting, every problem on standard error, with the file's path.
        try tmux.type("q")
        screen = try await tmux.waitFor("[exit 0]")
        let text = screen.joined(separator: "")
        #expect(text.contains("shelf: \(path):3: unknown action “jump”"), "\(screen.joined(separator: "\n"))")
        #expect(text.contains("shelf: \(path):4: "), "\(screen.joined(separator: "\n"))")
    }

    /// Hostile round 12: the configuration's first problem wrapped over lines of the status bar
    /// at 80 and 150 columns and pushed the list up. It keeps the bar's one line at any width,
    /// cut with where it is read whole, until the first key. (The problem is a clash, named at
    /// the line that made it.)
    @Test func theFirstProblemKeepsTheBarsOneLineAtEveryWidth() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let environment = try await prepare(shelf, config: "[keys.list]\nmoveUp = [\"x\"]\nmoveDown = [\"x\"]\n")
        let tmux = try browse(shelf, environment: environment, width: 80)
        var screen = try await tmux.waitFor { $0.contains(line: "Third task") && $0.contains(line: "shows it whole") }
        for width in [80, 150, 40] {
            if width != 80 {
                try tmux.resize(width: width, height: 20)
                screen = try await tmux.waitFor {
                    ($0.last { !$0.isEmpty }?.contains("shows it whole") ?? false)
                        && ($0.last { !$0.isEmpty }?.count ?? 0) > width - 4
                }
            }
            let shown = screen.joined(separator: "\n")
            // The bar is the screen's last line, and the only one with the problem's words.
            let bar = screen.last { !$0.isEmpty } ?? ""
            #expect(bar.hasPrefix(" config.toml:3: x fo"), "\(width): \(shown)")
            #expect(bar.contains("… ? shows it whole"), "\(width): \(shown)")
            #expect(
                screen.filter { $0.contains("config.toml") || $0.contains("moveUp") }.count == 1, "\(width): \(shown)")
            #expect(!screen.contains(line: "take x out of moveUp"), "cut, not wrapped: \(width): \(shown)")
            // The keys' hints too where there is room for both.
            #expect(bar.hasSuffix("? help  n new  q quit") == (width >= 80), "\(width): \(shown)")
        }
        // ? shows it whole (under the problems' heading, wrapped to the help's width).
        try tmux.type("?")
        screen = try await tmux.waitFor("┌─ Keys")
        try tmux.resize(width: 150, height: 40)
        screen = try await tmux.waitFor { $0.contains(line: "moveUp on line 2") }
        // Wrapped to the help's width, to the advice's last words.
        #expect(
            screen.contains(line: "• config.toml:3: x for moveDown") && screen.contains(line: "moveUp on line 2"),
            "\(screen.joined(separator: "\n"))")
        try tmux.send("Escape")
        try await tmux.waitFor { !$0.contains(line: "┌─ Keys") }
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }

    /// Hostile round 4: `shelf config` printed a value quoted from the file with its escape
    /// sequences raw (an OSC 52 would set the clipboard of whoever ran it).
    @Test func shelfConfigShowsEscapeSequencesOfTheFileEscaped() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let environment = try await prepare(
            shelf, config: "[keys.list]\nhelp = [\"\\u001b]52;c;aaaa\\u0007\", \"\\u001b[31m\"]\n")
        let check = try await shelf.run(["config"], environment: environment)
        #expect(check.status == 1)
        #expect(check.output.contains("config.toml:2: unknown key"), "\(check.output)")
        #expect(
            !check.output.contains("\u{1B}") && !check.output.contains("\u{07}"), "\(check.output.debugDescription)")
        #expect(check.output.contains("\\u{1B}"), "\(check.output.debugDescription)")
    }

    /// `shelf config` on a symbolic link that leads nowhere names it, as the browser does; it
    /// said "does not exist" and advised writing through the link (hostile round 8).
    @Test func shelfConfigNamesALinkThatLeadsNowhere() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let environment = try await prepare(shelf, config: "")
        let path = try #require(environment["XDG_CONFIG_HOME"]) + "/shelf/config.toml"
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: path)
        let check = try await shelf.run(["config"], environment: environment)
        #expect(check.status == 1, "\(check.output)")
        #expect(check.output.contains("is a symbolic link that leads nowhere"), "\(check.output)")
        #expect(!check.output.contains("does not exist"), "\(check.output)")
    }

    @Test func theDefaultsFileReadsCleanlyAndNoColorStillWins() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let defaults = try await shelf.run(["config", "--defaults"])
        #expect(defaults.status == 0)
        #expect(defaults.output.contains("[keys.editor]") && defaults.output.contains("[colors]"))
        let environment = try await prepare(shelf, config: defaults.output + "\n[colors]\n")
        // Reads cleanly… except the second [colors] table, which TOML refuses: named, the rest applies.
        let check = try await shelf.run(["config"], environment: environment)
        #expect(check.status == 1)
        #expect(check.output.contains("config.toml:"), "\(check.output)")
        try Data((defaults.output + "[list]\n").utf8).write(
            to: URL(fileURLWithPath: environment["XDG_CONFIG_HOME"]! + "/shelf/config.toml"))
        let clean = try await shelf.run(["config"], environment: environment)
        #expect(clean.status == 1, "[list] twice is refused too")
        try Data(defaults.output.utf8).write(
            to: URL(fileURLWithPath: environment["XDG_CONFIG_HOME"]! + "/shelf/config.toml"))
        let good = try await shelf.run(["config"], environment: environment)
        #expect(good.status == 0 && good.output.contains("It reads cleanly."), "\(good.output) \(good.error)")

        var colourless = environment
        colourless["NO_COLOR"] = "1"
        let tmux = try browse(shelf, environment: colourless)
        try await tmux.waitFor { $0.contains(line: "3 items") && $0.contains(line: "Ada Lovelace") }
        let styled = try tmux.captureStyled()
        #expect(!styled.contains("[36m") && !styled.contains(";36m"), "no colour: \(styled.debugDescription)")
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }
}

/// A store with three items of Ada's, and a config.toml under `XDG_CONFIG_HOME` holding `text`.
func prepareConfiguredStore(_ shelf: ShelfProcess, config text: String) async throws -> [String: String] {
    try await shelf.addAda(titles: ["First task", "Second task", "Third task"])
    let configHome = shelf.folder.appendingPathComponent("config")
    let folder = configHome.appendingPathComponent("shelf")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: folder.appendingPathComponent("config.toml"))
    return ["XDG_CONFIG_HOME": configHome.path, "HOME": shelf.folder.path]
}
