import LNoteFormat
import XCTest

/// The one XML escaper (SVG titles, the JUnit file, the snapshot report).
final class XMLTextTests: XCTestCase {
    func testMarkupIsEscapedAndNonXMLCharactersAreDropped() {
        let s = "a<b> & \"c\" 'd'\u{1}\u{FFFE}\u{FFFF}\te\nf\rg — ok"
        XCTAssertEqual(XMLText.attribute(s), "a&lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;&#9;e&#10;f&#13;g — ok")
        XCTAssertEqual(XMLText.content(s), "a&lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;&#9;e\nf&#13;g — ok")
        XCTAssertEqual(XMLText.content(""), "")
    }
}
