import ShelfStore
import Testing

@testable import ShelfTerminal

@Suite("Renderer")
struct RendererTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    private func canvas(_ lines: [String], width: Int = 10) -> Canvas {
        var canvas = Canvas(size: Size(width: width, height: lines.count))
        for (y, line) in lines.enumerated() { canvas.draw(line, at: Point(x: 0, y: y)) }
        return canvas
    }

    @Test func firstFrameClearsAndDrawsInOneSynchronizedUpdate() {
        var renderer = Renderer(colorMode: .ansi16)
        let output = text(renderer.render(canvas(["hi", "", "yo"])))
        #expect(output.hasPrefix("\u{1B}[?2026h\u{1B}[0m\u{1B}[H\u{1B}[2J"))
        #expect(output.hasSuffix("\u{1B}[?2026l"))
        #expect(output.contains("\u{1B}[1;1Hhi"))
        #expect(output.contains("\u{1B}[3;1Hyo"))
    }

    @Test func unchangedFrameWritesNothing() {
        var renderer = Renderer(colorMode: .ansi16)
        _ = renderer.render(canvas(["hello"]))
        #expect(renderer.render(canvas(["hello"])).isEmpty)
    }

    @Test func onlyChangedCellsAreWritten() {
        var renderer = Renderer(colorMode: .ansi16)
        _ = renderer.render(canvas(["hello world", "second"], width: 12))
        let output = text(renderer.render(canvas(["hello World", "second"], width: 12)))
        #expect(output == "\u{1B}[?2026h\u{1B}[1;7HW\u{1B}[?2026l")
    }

    @Test func shortGapsOnALineUseCursorForward() {
        var renderer = Renderer(colorMode: .ansi16)
        _ = renderer.render(canvas(["abcdefgh"]))
        let output = text(renderer.render(canvas(["Xbcdefgh"].map { $0.replacing("h", with: "H") })))
        #expect(output == "\u{1B}[?2026h\u{1B}[1;1HX\u{1B}[6CH\u{1B}[?2026l")
    }

    @Test func stylesAreSentOnlyWhenTheyChange() {
        var renderer = Renderer(colorMode: .ansi16)
        var frame = Canvas(size: Size(width: 6, height: 1))
        frame.draw("abc", at: .zero, style: Style(foreground: .red, attributes: .bold))
        frame.draw("def", at: Point(x: 3, y: 0), style: Style(foreground: .red, attributes: .bold))
        let output = text(renderer.render(frame))
        #expect(output.ranges(of: "\u{1B}[0;1;31m").count == 1)
        #expect(output.contains("\u{1B}[0;1;31mabcdef\u{1B}[0m"))
    }

    @Test func colourModes() {
        let style = Style(foreground: .rgb(255, 0, 0), background: .indexed(21))
        func rendered(_ mode: Renderer.ColorMode) -> String {
            var renderer = Renderer(colorMode: mode)
            var frame = Canvas(size: Size(width: 1, height: 1))
            frame.draw("x", at: .zero, style: style.with(.reverse))
            return text(renderer.render(frame))
        }
        #expect(rendered(.truecolor).contains("\u{1B}[0;7;38;2;255;0;0;48;5;21mx"))
        #expect(rendered(.indexed256).contains("\u{1B}[0;7;38;5;196;48;5;21mx"))
        #expect(rendered(.ansi16).contains("\u{1B}[0;7;91;104mx"))
        #expect(rendered(.monochrome).contains("\u{1B}[0;7mx"))
    }

    @Test func colourModeFromEnvironment() {
        #expect(Renderer.ColorMode.detect(environment: ["NO_COLOR": "1", "COLORTERM": "truecolor"]) == .monochrome)
        #expect(Renderer.ColorMode.detect(environment: ["NO_COLOR": "", "COLORTERM": "truecolor"]) == .truecolor)
        #expect(Renderer.ColorMode.detect(environment: ["TERM": "xterm-256color"]) == .indexed256)
        #expect(Renderer.ColorMode.detect(environment: ["TERM": "xterm"]) == .ansi16)
    }

    @Test func cursorShowsWhereAskedAndHidesAgain() {
        var renderer = Renderer(colorMode: .ansi16)
        var frame = canvas(["abc"])
        frame.cursor = Point(x: 2, y: 0)
        let shown = text(renderer.render(frame))
        #expect(shown.contains("\u{1B}[1;3H\u{1B}[?25h"))
        frame.cursor = nil
        #expect(text(renderer.render(frame)) == "\u{1B}[?2026h\u{1B}[?25l\u{1B}[?2026l")
    }

    @Test func invalidateRedrawsEverything() {
        var renderer = Renderer(colorMode: .ansi16)
        _ = renderer.render(canvas(["abc"]))
        renderer.invalidate()
        #expect(text(renderer.render(canvas(["abc"]))).contains("\u{1B}[2J"))
    }

    @Test func wideCharactersAdvanceTwoColumns() {
        var renderer = Renderer(colorMode: .ansi16)
        _ = renderer.render(canvas(["日本 ab"]))
        let output = text(renderer.render(canvas(["日本 aB"])))
        #expect(output == "\u{1B}[?2026h\u{1B}[1;7HB\u{1B}[?2026l")
    }

    @Test func dataCannotReachTheTerminalAsControls() {
        var renderer = Renderer(colorMode: .truecolor)
        let output = renderer.render(canvas(["\u{1B}]0;x\u{07}\u{1B}[31m"], width: 20))
        let body = text(output).replacing(/\x{1B}\[[0-9;?]*[A-Za-z]/, with: "")
        #expect(!body.unicodeScalars.contains { $0.value < 0x20 })
    }
}

@Suite("Renderer on an emulated terminal")
struct RendererEmulationTests {
    /// Draws `rows[top...]` as a list of `height` lines with a status line below.
    private func listFrame(_ rows: [String], top: Int, selected: Int, width: Int = 30, height: Int = 12) -> Canvas {
        var canvas = Canvas(size: Size(width: width, height: height))
        canvas.draw("Header", at: .zero, style: Style(attributes: .bold))
        for line in 0..<height - 2 where top + line < rows.count {
            let style = top + line == selected ? Style(attributes: .reverse) : .plain
            canvas.draw(TextLayout.pad(rows[top + line], to: width), at: Point(x: 0, y: line + 1), style: style)
        }
        canvas.draw("row \(selected + 1) of \(rows.count)", at: Point(x: 0, y: height - 1))
        return canvas
    }

    @Test func scrollingOneRowScrollsTheTerminalAndWritesLittle() {
        let rows = (1...100).map { "Item number \($0) — 日本" }
        var renderer = Renderer(colorMode: .ansi16)
        var terminal = ScreenEmulator(width: 30, height: 12)
        terminal.apply(renderer.render(listFrame(rows, top: 0, selected: 9)))
        let full = Renderer(colorMode: .ansi16).rendered(listFrame(rows, top: 1, selected: 10)).count
        let bytes = renderer.render(listFrame(rows, top: 1, selected: 10))
        terminal.apply(bytes)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\u{1B}[2;10r\u{1B}[1S\u{1B}[r"))
        #expect(terminal.text == listFrame(rows, top: 1, selected: 10).lines)
        #expect(Double(bytes.count) < Double(full) * 0.5)
        #expect(terminal.unknown.isEmpty)
    }

    @Test func scrollingUpUsesScrollDown() {
        let rows = (1...100).map { "Row \($0)" }
        var renderer = Renderer(colorMode: .ansi16)
        var terminal = ScreenEmulator(width: 30, height: 12)
        terminal.apply(renderer.render(listFrame(rows, top: 50, selected: 50)))
        let bytes = renderer.render(listFrame(rows, top: 47, selected: 47))
        terminal.apply(bytes)
        #expect(String(decoding: bytes, as: UTF8.self).contains("3T"))
        #expect(terminal.text == listFrame(rows, top: 47, selected: 47).lines)
    }

    @Test func randomFrameSequencesReproduceExactly() {
        var generator = SeededRandomNumberGenerator(seed: 42)
        let words = ["alpha", "日本語", "🙂 ok", "e\u{301}t\u{E9}", "wide ｗｉｄｅ", "", "x"]
        var renderer = Renderer(colorMode: .indexed256)
        var terminal = ScreenEmulator(width: 24, height: 10)
        var rows = (0..<200).map { "\($0) " + words[$0 % words.count] }
        var top = 0
        for step in 0..<300 {
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: top = max(0, top - Int.random(in: 1...4, using: &generator))
            case 1, 2: top = min(rows.count - 1, top + Int.random(in: 1...3, using: &generator))
            case 3: rows[Int.random(in: 0..<rows.count, using: &generator)] = words.randomElement(using: &generator)!
            case 4: rows.insert("new \(step)", at: Int.random(in: 0..<rows.count, using: &generator))
            default: top = Int.random(in: 0..<rows.count, using: &generator)
            }
            let frame = listFrame(rows, top: top, selected: top + step % 5, width: 24, height: 10)
            terminal.apply(renderer.render(frame))
            #expect(terminal.text == frame.lines, "step \(step)")
            if terminal.text != frame.lines { break }
        }
        #expect(terminal.unknown.isEmpty)
    }
}

extension Renderer {
    /// The bytes of a full redraw of `canvas` by a fresh renderer.
    func rendered(_ canvas: Canvas) -> [UInt8] {
        var fresh = Renderer(colorMode: colorMode)
        return fresh.render(canvas)
    }
}

/// Terminals count columns with width tables of their own; the renderer must keep every row's
/// columns in place whatever a terminal's table says about characters whose width is not
/// certain.
@Suite("Renderer with a terminal that counts widths differently")
struct RendererWidthDisagreementTests {
    /// A terminal without grapheme clusters: each scalar counts on its own (a ZWJ family is 8
    /// columns, ❤️ is 1, a combining mark 0).
    static func perScalar(_ grapheme: String) -> Int {
        grapheme.unicodeScalars.reduce(0) { $0 + DisplayWidth.of($1) }
    }

    /// A terminal with newer emoji tables: every emoji and every cluster of several scalars is
    /// 2 columns, and U+2028 is 0.
    static func emojiWide(_ grapheme: String) -> Int {
        let scalars = grapheme.unicodeScalars
        if scalars.contains(where: { $0.properties.isEmoji && $0.value > 0x7F }) { return 2 }
        if scalars.count > 1, DisplayWidth.of(grapheme) > 0 { return 2 }
        if scalars.first?.value == 0x2028 { return 0 }
        return DisplayWidth.of(grapheme)
    }

    static let titles = [
        "Plain title", "\u{2764}\u{FE0F} love letters", "a\u{2028}b\u{2029}c separators",
        "Ze" + String(repeating: "\u{301}", count: 500) + "lgo",
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466} family",
        "日本語のドキュメント", "e\u{301}t\u{E9} déjà", "\u{1F1EB}\u{1F1F7} flag", "\u{2764} text heart",
        "tab\there", "\u{202E}override", "\u{E000} private",
    ]

    /// A list like the browser's: title, owner and date at fixed columns.
    static func frame(_ titles: [String], selected: Int, width: Int = 48) -> Canvas {
        var canvas = Canvas(size: Size(width: width, height: titles.count + 1))
        canvas.draw("Title", at: .zero, style: Style(attributes: .bold))
        canvas.draw("Owner", at: Point(x: 26, y: 0), style: Style(attributes: .bold))
        for (row, title) in titles.enumerated() {
            let y = row + 1
            let style = row == selected ? Style(attributes: .reverse) : .plain
            canvas.fill(Rect(origin: Point(x: 0, y: y), size: Size(width: width, height: 1)), style: style)
            canvas.draw(title, at: Point(x: 0, y: y), style: style, width: 24)
            canvas.draw("Ada Lovelace", at: Point(x: 26, y: y), style: style)
            canvas.draw("\(row)h ago", at: Point(x: 40, y: y), style: style)
        }
        return canvas
    }

    /// Every cell of certain width shows in its own column on `terminal`.
    static func expectCertainCellsInPlace(
        _ terminal: ScreenEmulator, _ canvas: Canvas, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        for y in 0..<canvas.size.height {
            for x in 0..<canvas.size.width where canvas[x, y].hasCertainWidth && !canvas[x, y].isContinuation {
                if terminal.lines[y][x] != canvas[x, y].text {
                    let shown = terminal.lines[y][x].debugDescription
                    let message =
                        "\(context): row \(y) column \(x) shows \(shown), not "
                        + "\(canvas[x, y].text.debugDescription): \(terminal.text[y].debugDescription)"
                    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
                    return false
                }
            }
        }
        return true
    }

    @Test(arguments: [("per scalar", perScalar), ("emoji wide", emojiWide)] as [(String, @Sendable (String) -> Int)])
    func columnsLineUpOnEveryRow(_ name: String, _ columns: @escaping @Sendable (String) -> Int) {
        var renderer = Renderer(colorMode: .ansi16)
        var terminal = ScreenEmulator(width: 48, height: Self.titles.count + 1, columns: columns)
        var titles = Self.titles
        var generator = SeededRandomNumberGenerator(seed: 7)
        for step in 0..<60 {
            // Rows change places, the selection moves, some frames change nothing.
            switch step % 4 {
            case 0: titles.shuffle(using: &generator)
            case 1: titles.swapAt(Int.random(in: 0..<titles.count, using: &generator), 0)
            default: break
            }
            let canvas = Self.frame(titles, selected: step % titles.count)
            terminal.apply(renderer.render(canvas))
            guard Self.expectCertainCellsInPlace(terminal, canvas, "\(name), step \(step)") else { return }
            for y in 1..<canvas.size.height {
                #expect(terminal.text[y].contains("Ada Lovelace"), "\(name), step \(step), row \(y)")
            }
        }
        #expect(terminal.unknown.isEmpty)
    }

    @Test func aRowThatHeldAWideSpillIsClearedWhenItBecomesPlain() {
        var renderer = Renderer(colorMode: .ansi16)
        var terminal = ScreenEmulator(width: 48, height: 3, columns: Self.perScalar)
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"
        terminal.apply(renderer.render(Self.frame([family, "x"], selected: 1)))
        let plain = Self.frame(["", "x"], selected: 1)
        terminal.apply(renderer.render(plain))
        #expect(terminal.text == plain.lines)
    }

    @Test func uncertainCellsArePositionedAbsolutely() {
        var renderer = Renderer(colorMode: .ansi16)
        var canvas = Canvas(size: Size(width: 12, height: 1))
        canvas.draw("a\u{2764}\u{FE0F}bc", at: .zero)
        let output = String(decoding: renderer.render(canvas), as: UTF8.self)
        // Cleared, written after a CUP, and the next cell placed with a CUP.
        #expect(output.contains("\u{1B}[1;2H  \u{1B}[1;2H\u{2764}\u{FE0F}\u{1B}[1;4Hbc"))
    }

    @Test func plainTextKeepsFlowingWithoutAbsoluteMoves() {
        var renderer = Renderer(colorMode: .ansi16)
        var canvas = Canvas(size: Size(width: 30, height: 2))
        canvas.draw("héllo ─ 日本 ｗ Ωμέγα ✓ “q” …", at: .zero)
        canvas.draw("Ünïcödé €5 ¶", at: Point(x: 0, y: 1))
        let output = String(decoding: renderer.render(canvas), as: UTF8.self)
        #expect(output.ranges(of: /\x{1B}\[\d+;\d+H/).count == 2, "one move per row: \(output.debugDescription)")
        // A change in the middle of such a row writes only that cell.
        canvas.draw("H", at: .zero)
        #expect(String(decoding: renderer.render(canvas), as: UTF8.self) == "\u{1B}[?2026h\u{1B}[1;1HH\u{1B}[?2026l")
    }
}

@Suite("Sanitizer and width certainty")
struct SanitizerTests {
    @Test func separatorsBecomeVisibleSymbols() {
        #expect(Sanitizer.sanitize("a\u{2028}b\u{2029}c\u{85}d") == "a\u{2424}b\u{B6}c\u{2424}d")
        #expect(Sanitizer.sanitize("a\nb\r\u{B}\u{C}") == "a\u{240A}b\u{240D}\u{240B}\u{240C}")
        #expect(DisplayWidth.of(Sanitizer.sanitize("a\u{2028}b\u{2029}c")) == 5)
    }

    @Test func combiningMarksAreCappedPerCharacter() {
        let zalgo = "Z" + String(repeating: "\u{301}", count: 500) + "a" + String(repeating: "\u{20DD}", count: 9)
        let sanitized = Sanitizer.sanitize(zalgo)
        #expect(Array(sanitized.unicodeScalars).count == 1 + 4 + 1 + 4)
        #expect(sanitized.count == 2)
        // Ordinary accents and emoji sequences are untouched.
        for text in ["tiếng Việt", "e\u{301}\u{302}", "\u{1F469}\u{1F3FD}\u{200D}\u{1F52C}", "\u{2764}\u{FE0F}"] {
            #expect(Sanitizer.sanitize(text) == text)
        }
    }

    static let certain: [Character] = [
        "a", " ", "~", "é", "ß", "Ω", "Ж", "א", "ب", "क", "─", "│", "█", "…", "·", "“",
        "€", "✓", "\u{2424}", "\u{B6}", "\u{FFFD}", "日", "語", "ア", "한", "ｗ", "ｱ", "\u{3000}",
    ]
    static let uncertain: [Character] = [
        "\u{2764}\u{FE0F}", "\u{2764}", "e\u{301}", "🙂", "\u{1F1EB}\u{1F1F7}",
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{2329}", "\u{E000}", "\u{1FAE8}", "\u{A9}", "\u{AD}",
        "\u{2028}", "\u{200B}", "\u{1F3FD}", "\u{9FFF}",
    ]

    @Test func widthCertainty() {
        for character in Self.certain {
            #expect(
                DisplayWidth.isCertain(character), "\(character.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        for character in Self.uncertain {
            #expect(
                !DisplayWidth.isCertain(character), "\(character.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }
}
