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
        var generator = SeededGenerator(seed: 42)
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
