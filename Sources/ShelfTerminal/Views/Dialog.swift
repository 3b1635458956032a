/// A box of a given size centred in its frame, drawn over what is below: for modal dialogs.
@MainActor
public final class Dialog: View {
    /// The bordered box the dialog shows, with a plain background so it hides what is below.
    public let box: Box
    /// The size wanted; the dialog shrinks to fit small screens.
    public var preferredSize: Size

    /// A dialog titled `title` around `content` (which must have no superview). Add the dialog
    /// over the views it covers, and remove it to dismiss it.
    public init(title: String, content: View, preferredSize: Size) {
        box = Box(title: title, content: content, borderStyle: Style(attributes: .bold))
        box.background = .plain
        self.preferredSize = preferredSize
        super.init()
        addSubview(box)
    }

    /// Centres the box in the frame at `preferredSize`, shrunk to fit the frame.
    public override func layoutSubviews() {
        box.frame = frame.centered(preferredSize)
    }
}
