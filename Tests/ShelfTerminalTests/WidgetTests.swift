import ShelfTerminalTesting
import Testing

@testable import ShelfTerminal

@MainActor
@Suite("TextField")
struct TextFieldTests {
    private func field(_ text: String = "") -> TextField {
        let field = TextField()
        field.setText(text)
        return field
    }

    @Test func typingInsertsAtTheCursor() {
        let field = field("ac")
        #expect(field.handle(KeyEvent(.left)))
        #expect(field.handle(.character("b")))
        #expect(field.text == "abc")
        #expect(field.cursor == 2)
    }

    /// A combining mark or a variation selector typed after a character joins it: the text
    /// then has one character fewer than the keys typed, and the cursor must follow (typing
    /// "❤️a" or "e\u{301}x" used to crash with an index out of range).
    @Test(arguments: [
        ["\u{2764}", "\u{FE0F}", "a", "b"], ["e", "\u{301}", "x"], ["\u{301}", "\u{301}", "a"],
        ["👩", "\u{200D}", "💻", "!"], ["🇫", "🇷", "x"],
    ])
    func charactersThatJoinKeepTheCursorInTheText(_ keys: [String]) {
        let field = field()
        for key in keys {
            for character in key { #expect(field.handle(.character(character))) }
            #expect(field.cursor <= field.text.count)
        }
        #expect(field.text == keys.joined())
        #expect(field.cursor == field.text.count)
        // Editing in the middle of joined characters stays inside the text too.
        _ = field.handle(KeyEvent(.left))
        _ = field.handle(.character("\u{308}"))
        _ = field.handle(KeyEvent(.backspace))
        _ = field.handle(KeyEvent(.home))
        _ = field.handle(.character("\u{FE0F}"))
        _ = field.handle(KeyEvent(.end))
        _ = field.handle(.character("z"))
        #expect(field.cursor == field.text.count)
        field.paste("e\u{301}\u{FE0F}")
        #expect(field.cursor <= field.text.count)
    }

    @Test func editingKeys() {
        let field = field("hello big world")
        _ = field.handle(.control("w"))
        #expect(field.text == "hello big ")
        _ = field.handle(KeyEvent(.backspace))
        _ = field.handle(KeyEvent(.home))
        _ = field.handle(KeyEvent(.delete))
        #expect(field.text == "ello big")
        _ = field.handle(KeyEvent(.right, modifiers: .alt))
        #expect(field.cursor == 4)
        _ = field.handle(.control("k"))
        #expect(field.text == "ello")
        _ = field.handle(.control("a"))
        _ = field.handle(.control("e"))
        #expect(field.cursor == 4)
        _ = field.handle(.control("u"))
        #expect(field.text.isEmpty)
    }

    @Test func nonEditingKeysAreNotTaken() {
        let field = field("x")
        #expect(!field.handle(KeyEvent(.enter)))
        #expect(!field.handle(KeyEvent(.escape)))
        #expect(!field.handle(KeyEvent(.down)))
        #expect(!field.handle(.control("c")))
    }

    @Test func pasteJoinsLinesAndReportsOneChange() {
        let field = field("a")
        var changes: [String] = []
        field.onChange = { changes.append($0) }
        field.paste("one\ntwo\tthree")
        #expect(field.text == "aone two three")
        #expect(changes == ["aone two three"])
    }

    @Test func longTextScrollsToKeepTheCursorVisible() {
        let field = TextField(prompt: "/")
        field.setText("abcdefghijklmnop")
        field.isFocused = true
        field.frame = Rect(x: 0, y: 0, width: 8, height: 1)
        var canvas = Canvas(size: Size(width: 8, height: 1))
        field.render(in: &canvas, tick: 0)
        #expect(canvas.line(0) == "/klmnop ")
        #expect(canvas.cursor == Point(x: 7, y: 0))
        _ = field.handle(KeyEvent(.home))
        canvas = Canvas(size: Size(width: 8, height: 1))
        field.render(in: &canvas, tick: 0)
        #expect(canvas.line(0) == "/abcdefg")
        #expect(canvas.cursor == Point(x: 1, y: 0))
    }

    /// Hostile round 11: a field scrolled at a narrow width kept its scroll when widened by a
    /// resize: its start stayed out of sight with room left empty.
    @Test func aWidenedFieldShowsItsTextFromTheStart() {
        let field = TextField(prompt: "/")
        field.setText("abcdefghijklmnop")
        field.isFocused = true
        field.frame = Rect(x: 0, y: 0, width: 8, height: 1)
        var canvas = Canvas(size: Size(width: 8, height: 1))
        field.render(in: &canvas, tick: 0)
        #expect(canvas.line(0) == "/klmnop ")
        field.frame = Rect(x: 0, y: 0, width: 20, height: 1)
        canvas = Canvas(size: Size(width: 20, height: 1))
        field.render(in: &canvas, tick: 0)
        #expect(canvas.line(0) == "/abcdefghijklmnop   ")
        #expect(canvas.cursor == Point(x: 17, y: 0))
        // Wide enough but for the cursor's cell: scrolled by one only.
        field.frame = Rect(x: 0, y: 0, width: 17, height: 1)
        canvas = Canvas(size: Size(width: 17, height: 1))
        field.render(in: &canvas, tick: 0)
        #expect(canvas.line(0) == "/bcdefghijklmnop ")
    }

    @Test func placeholderShowsWhenEmpty() {
        let field = TextField(prompt: "> ", placeholder: "search")
        field.frame = Rect(x: 0, y: 0, width: 12, height: 1)
        var canvas = Canvas(size: Size(width: 12, height: 1))
        field.render(in: &canvas, tick: 0)
        #expect(canvas.line(0) == "> search    ")
        #expect(canvas[2, 0].style.attributes.contains(.dim))
        #expect(canvas.cursor == nil)
    }

    @Test func maximumLengthIsEnforced() {
        let field = field("abc")
        field.maximumLength = 4
        _ = field.handle(.character("d"))
        _ = field.handle(.character("e"))
        field.paste("xyz")
        #expect(field.text == "abcd")
    }
}

/// A screen of every widget, for whole-screen assertions.
@MainActor
final class GalleryController: Controller {
    let label = Label("Gallery")
    let status = StatusBar(left: "left side", right: "right ")
    let spinner = Spinner("Loading…")
    let progress = ProgressBar(fraction: 0.5, label: "50%")
    var dialog: Dialog?

    override func loadView() {
        let body = Label("Body text that wraps across lines", style: .plain)
        body.wraps = true
        body.length = .flexible()
        // A plain view gives each subview the whole frame: the stack below, dialogs on top.
        let root = View()
        root.addSubview(StackView(axis: .vertical, [label, spinner, progress, body, status]))
        view = root
    }

    override func handle(_ event: KeyEvent) -> Bool {
        if event == .character("d") {
            let dialog = Dialog(
                title: "Confirm", content: Label("Delete it?"), preferredSize: Size(width: 16, height: 3))
            view.addSubview(dialog)
            self.dialog = dialog
            return true
        }
        return false
    }
}

@MainActor
@Suite("Headless screen")
struct HeadlessScreenTests {
    @Test func wholeScreenOfWidgets() {
        let screen = HeadlessScreen(rootController: GalleryController(), size: Size(width: 20, height: 7))
        #expect(
            screen.lines == [
                "Gallery             ",
                "⠋ Loading…          ",
                "████████         50%",
                "Body text that wraps",
                "across lines        ",
                "                    ",
                " left side    right ",
            ])
    }

    @Test func dialogDrawsOverTheScreen() {
        let screen = HeadlessScreen(rootController: GalleryController(), size: Size(width: 20, height: 7))
        screen.send(.character("d"))
        #expect(
            screen.text == """
                Gallery
                ⠋ Loading…
                ██┌─ Confirm ────┐0%
                Bo│Delete it?    │ps
                ac└──────────────┘

                 left side    right
                """)
    }

    @Test func resizeLaysOutAgain() {
        let screen = HeadlessScreen(rootController: GalleryController(), size: Size(width: 20, height: 7))
        screen.resize(to: Size(width: 12, height: 4))
        #expect(screen.lines == ["Gallery     ", "⠋ Loading…  ", "████     50%", " lef… right "])
    }

    @Test func spinnerTurnsWithTheTick() {
        let controller = GalleryController()
        let screen = HeadlessScreen(rootController: controller, size: Size(width: 20, height: 7))
        #expect(screen.window.isAnimating)
        screen.window.tick = 3
        controller.spinner.setNeedsDisplay()
        #expect(screen.lines[1].hasPrefix("⠸ Loading"))
        controller.spinner.isHidden = true
        #expect(!screen.window.isAnimating)
    }

    @Test func progressBarUsesEighthBlocks() {
        #expect(ProgressBar.bar(fraction: 0.5, width: 4) == "██  ")
        #expect(ProgressBar.bar(fraction: 0.3, width: 4) == "█▏  ")
        #expect(ProgressBar.bar(fraction: 1, width: 3) == "███")
        #expect(ProgressBar.bar(fraction: -1, width: 2) == "  ")
        #expect(ProgressBar.bar(fraction: .nan, width: 2) == "  ")
    }
}

@MainActor
@Suite("StatusBar")
struct StatusBarTests {
    private func drawn(_ bar: StatusBar, width: Int) -> [String] {
        let lines = bar.lineCount(width: width)
        var canvas = Canvas(size: Size(width: width, height: lines))
        bar.frame = Rect(x: 0, y: 0, width: width, height: lines)
        bar.draw(in: &canvas)
        return (0..<lines).map { canvas.line($0) }
    }

    /// Hostile round 13: a copy's failure was cut at the bar's end ("… set TMPDIR to a f…").
    /// With room for more lines, a long left side wraps over them, the right side on the last
    /// when it fits; with one line (the default), it is cut as before.
    @Test func aLongLeftSideWrapsOverTheLinesAllowed() {
        let message =
            "Could not copy: TMPDIR /nonexistent does not exist; set it to a folder you can write, or unset it"
        let bar = StatusBar(left: message, right: "? help ")
        #expect(bar.lineCount(width: 40) == 1)
        #expect(drawn(bar, width: 40) == [" Could not copy: TMPDIR /nonexi… ? help "])
        bar.maximumLines = 3
        #expect(bar.lineCount(width: 40) == 3)
        #expect(
            drawn(bar, width: 40) == [
                " Could not copy: TMPDIR /nonexistent    ",
                " does not exist; set it to a folder you ",
                " can write, or unset it          ? help ",
            ])
        // Past the lines allowed, the last ends in "…"; a short text keeps one line.
        bar.maximumLines = 2
        #expect(
            drawn(bar, width: 40).last.map { String($0.reversed().drop { $0 == " " }.reversed()) }?.hasSuffix("…")
                == true,
            "\(drawn(bar, width: 40))")
        // The cut mark says where the rest is read, whole, at the end of the last line.
        bar.cutMark = " … ? shows it whole"
        #expect(
            drawn(bar, width: 40) == [
                " Could not copy: TMPDIR /nonexistent    ",
                " does not exist; set … ? shows it whole ",
            ], "\(drawn(bar, width: 40))")
        bar.cutMark = " …"
        // A left side that fills a line leaves the right side the next.
        bar.maximumLines = 3
        bar.left = String(repeating: "x", count: 36)
        #expect(
            drawn(bar, width: 40) == [
                " " + String(repeating: "x", count: 36) + "   ", "                                 ? help ",
            ])
        bar.left = "3 items"
        #expect(bar.lineCount(width: 40) == 1)
        #expect(drawn(bar, width: 40) == [" 3 items                         ? help "])
    }
}
