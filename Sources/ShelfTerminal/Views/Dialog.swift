/// A box of a given size centred in its frame, drawn over what is below: for modal dialogs.
@MainActor
public final class Dialog: View {
    /// The bordered box the dialog shows, with a plain background so it hides what is below.
    public let box: Box
    /// The size wanted; the dialog shrinks to fit small screens.
    public var preferredSize: Size
    /// Rows added to `preferredSize`'s height at each layout, asked with the room the dialog
    /// has (its width as shown, the frame's height): for a message that needs more rows when
    /// the screen has them. The closure may set its content's lengths to match. Nil adds none.
    public var extraHeight: (@MainActor (_ room: Size) -> Int)?

    /// A dialog titled `title` around `content` (which must have no superview). Add the dialog
    /// over the views it covers, and remove it to dismiss it.
    public init(title: String, content: View, preferredSize: Size) {
        box = Box(title: title, content: content, borderStyle: Style(attributes: .bold))
        box.background = .plain
        self.preferredSize = preferredSize
        super.init()
        addSubview(box)
    }

    /// Centres the box in the frame at `preferredSize` (plus `extraHeight`), shrunk to fit the frame.
    public override func layoutSubviews() {
        var size = preferredSize
        if let extraHeight {
            let room = Size(width: min(preferredSize.width, frame.width), height: frame.height)
            size.height += max(0, extraHeight(room))
        }
        box.frame = frame.centered(size)
    }
}
