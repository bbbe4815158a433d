// What a snapshot run leaves for CI and for people: JUnit XML (one testcase per page) and a
// static HTML report (index.html, the images beside it; no network, no framework).

import Foundation
import LNoteFormat

extension PageSnapshot {
    /// One line for people: `differs: 120 of 76800 pixels …`.
    public var summary: String {
        var parts: [String] = []
        switch status {
        case .matched: parts.append(comparison.map { $0.identical ? "identical" : "within the tolerance: \($0)" } ?? "matches")
        case .recorded: parts.append("new golden written")
        case .updated: parts.append("golden rewritten" + (comparison.map { " (it differed: \($0))" } ?? ""))
        case .missing: parts.append("no golden")
        case .differs, .outdated: if let c = comparison { parts.append(c.description) }
        case .unreadable, .failed: break
        }
        if renumbered { parts.append("the golden's name is out of date (another page number or id form); --record renames it") }
        if let renamedFrom { parts.append("golden renamed from \(URL(fileURLWithPath: renamedFrom).lastPathComponent)") }
        if let message { parts.append(message) }
        return parts.joined(separator: "; ")
    }
}

/// JUnit XML as GitHub Actions (test reporters), GitLab and Jenkins read it: `testsuites`, one
/// `testsuite` per document, one `testcase` per page, a `failure` for a page that differs or is
/// missing, an `error` for one that could not be compared.
public enum SnapshotJUnit {
    public static func xml(_ run: SnapshotRun) -> String {
        let pages = run.pages
        let failures = pages.filter { $0.status.fails && !$0.status.cannotCompare }.count
        let errors = pages.filter(\.status.cannotCompare).count + run.documents.filter { $0.error != nil }.count
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"lnote-render snapshot\" tests=\"\(pages.count + run.documents.filter { $0.error != nil }.count)\" "
            + "failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(seconds(run.seconds))\">\n"
        for (index, document) in run.documents.enumerated() {
            let docFailures = document.pages.filter { $0.status.fails && !$0.status.cannotCompare }.count
            let docErrors = document.pages.filter(\.status.cannotCompare).count + (document.error == nil ? 0 : 1)
            let tests = document.pages.count + (document.error == nil ? 0 : 1)
            out += "  <testsuite name=\"\(escape(document.key))\" id=\"\(index)\" tests=\"\(tests)\" failures=\"\(docFailures)\" "
                + "errors=\"\(docErrors)\" skipped=\"0\" time=\"\(seconds(document.pages.reduce(0) { $0 + $1.seconds }))\">\n"
            out += "    <properties>\n"
            out += "      <property name=\"document\" value=\"\(escape(document.path))\"/>\n"
            out += "      <property name=\"goldens\" value=\"\(escape(document.goldenDirectory))\"/>\n"
            out += "      <property name=\"renderer-version\" value=\"\(escape(run.rendererVersion))\"/>\n"
            out += "    </properties>\n"
            if let error = document.error {
                out += "    <testcase name=\"document\" classname=\"\(escape(className(document)))\" time=\"0\">\n"
                out += "      <error message=\"\(escape(error.description))\" type=\"unreadable\"/>\n"
                out += "    </testcase>\n"
            }
            for page in document.pages {
                let name = "page \(page.number)" + (page.name.map { " (\($0.fileName))" } ?? "")
                out += "    <testcase name=\"\(escape(name))\" classname=\"\(escape(className(document)))\" time=\"\(seconds(page.seconds))\">\n"
                let details = detail(page)
                if page.status.cannotCompare {
                    out += "      <error message=\"\(escape(page.status.rawValue + ": " + page.summary))\" type=\"\(page.status.rawValue)\">\(content(details))</error>\n"
                } else if page.status.fails {
                    out += "      <failure message=\"\(escape(page.status.rawValue + ": " + page.summary))\" type=\"\(page.status.rawValue)\">\(content(details))</failure>\n"
                }
                out += "      <system-out>\(content(details))</system-out>\n"
                out += "    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    static func className(_ document: DocumentSnapshot) -> String {
        "snapshot." + document.key.replacingOccurrences(of: "/", with: ".")
    }

    /// The statistics and artifact paths of a page, one per line.
    static func detail(_ page: PageSnapshot) -> String {
        var lines = ["status: \(page.status.rawValue)", "renderer version: \(page.rendererVersion)"]
        if let v = page.goldenRendererVersion { lines.append("golden renderer version: \(v)") }
        if let c = page.comparison { lines.append("comparison: \(c)") }
        if let golden = page.golden { lines.append("golden: \(golden)") }
        if let p = page.artifacts.expected { lines.append("expected: \(p)") }
        if let p = page.artifacts.actual { lines.append("actual: \(p)") }
        if let p = page.artifacts.diff { lines.append("diff: \(p)") }
        if let m = page.message { lines.append("message: \(m)") }
        return lines.joined(separator: "\n")
    }

    static func seconds(_ s: Double) -> String { String.fixed(s, digits: 3) }

    /// An attribute value (`XMLText`, the one escaper of the XML and HTML we write).
    public static func escape(_ s: String) -> String { XMLText.attribute(s) }

    /// Element content, where line breaks are kept as they are.
    static func content(_ s: String) -> String { XMLText.content(s) }
}

/// The HTML report: `index.html` beside the artifacts of the run (`<document>/<name>.{expected,
/// actual,diff}.png`, written there by `SnapshotOptions.artifactsDirectory`), with relative
/// links only, so it works from `file://` and as an uploaded CI artifact.
public enum SnapshotHTMLReport {
    /// `recordCommand`: the command line that records (updates) the goldens of this run.
    public static func html(_ run: SnapshotRun, reportDirectory: String, recordCommand: String) -> String {
        let e: (String) -> String = SnapshotJUnit.escape
        let pages = run.pages
        let shown = pages.filter { $0.status != .matched }
        var h = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <title>lnote-render snapshot: \(run.exitStatus == 0 ? "passed" : "failed")</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
            h1{font-size:20px;margin:0 0 8px}.counts span{display:inline-block;margin-right:14px;padding:2px 8px;border-radius:4px;background:#eee}
            .counts .bad{background:#fdd}.counts .good{background:#dfd}.counts .new{background:#def}
            section.page{background:#fff;border:1px solid #ddd;border-radius:6px;margin:16px 0;padding:12px}
            section.page h2{font-size:16px;margin:0 0 6px}.status{font-weight:bold;text-transform:uppercase}
            .differs .status,.outdated .status,.missing .status,.unreadable .status,.failed .status{color:#b00}
            .recorded .status,.updated .status{color:#06c}
            .row{display:flex;gap:12px;flex-wrap:wrap;align-items:flex-start}figure{margin:0}figcaption{font-size:12px;color:#666}
            img{border:1px solid #ccc;background:#fff;image-rendering:pixelated;display:block}
            .slider{position:relative;display:inline-block}.slider .over{position:absolute;left:0;top:0;clip-path:inset(0 50% 0 0)}
            .slider input{display:block;width:100%}
            code,pre{background:#f2f2f2;padding:2px 4px;border-radius:3px;white-space:pre-wrap;word-break:break-all}
            table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;font-size:13px}
            </style></head><body>
            <h1>lnote-render snapshot</h1>
            <p>Goldens: <code>\(e(run.goldens))</code>; renderer version \(e(run.rendererVersion)); \(pages.count) page(s) of \(run.documents.count) document(s) in \(String.fixed(run.seconds, digits: 2)) s.</p>
            <p class="counts">
            """
        let classes: [SnapshotStatus: String] = [.matched: "good", .recorded: "new", .updated: "new"]
        for status in SnapshotStatus.allCases {
            let n = run.count(status)
            if n > 0 || status == .matched || status == .differs || status == .missing {
                h += "<span class=\"\(n == 0 ? "zero" : classes[status] ?? "bad")\">\(status.rawValue): \(n)</span>"
            }
        }
        let orphans = run.documents.flatMap(\.orphans) + run.orphanDocuments
        if !orphans.isEmpty { h += "<span>goldens of no page: \(orphans.count)</span>" }
        h += "</p>\n"
        for document in run.documents {
            if let error = document.error {
                h += "<section class=\"page failed\"><h2>\(e(document.key)) <span class=\"status\">unreadable</span></h2><p>\(e(error.description))</p></section>\n"
            }
        }
        if shown.contains(where: \.status.fails) {
            h += "<p>To accept the new pictures as goldens: <code>\(e(recordCommand))</code></p>\n"
        }
        for document in run.documents {
            for page in document.pages where page.status != .matched {
                h += section(page, document: document, reportDirectory: reportDirectory, recordCommand: recordCommand)
            }
        }
        let matched = pages.count - shown.count
        h += "<details><summary>\(matched) matching page(s)</summary><table><tr><th>document</th><th>page</th><th>golden</th><th>result</th></tr>\n"
        for document in run.documents {
            for page in document.pages where page.status == .matched {
                h += "<tr><td>\(e(document.key))</td><td>\(page.number)</td><td>\(e(page.name?.fileName ?? ""))</td><td>\(e(page.summary))</td></tr>\n"
            }
        }
        h += "</table></details>\n"
        if !orphans.isEmpty {
            h += "<details open><summary>\(orphans.count) golden(s) of no page</summary><ul>\n"
            for o in orphans { h += "<li><code>\(e(o.path))</code>\(o.pruned ? " (deleted by --prune)" : o.error.map { " (not deleted: \(e($0)))" } ?? " (--prune deletes it)")</li>\n" }
            h += "</ul></details>\n"
        }
        h += """
            <script>
            for (const s of document.querySelectorAll('.slider')) {
              const range = s.querySelector('input'), over = s.querySelector('.over');
              const show = () => { over.style.clipPath = 'inset(0 ' + (100 - range.value) + '% 0 0)'; };
              range.addEventListener('input', show); show();
            }
            </script>
            </body></html>

            """
        return h
    }

    private static func section(_ page: PageSnapshot, document: DocumentSnapshot, reportDirectory: String, recordCommand: String) -> String {
        let e: (String) -> String = SnapshotJUnit.escape
        func link(_ path: String?) -> String? { path.map { relative($0, from: reportDirectory) } }
        let (expected, actual, diff) = (link(page.artifacts.expected), link(page.artifacts.actual), link(page.artifacts.diff))
        let title = "\(document.title.map { $0.isEmpty ? document.key : "\($0) (\(document.key))" } ?? document.key), page \(page.number)"
        var h = "<section class=\"page \(page.status.rawValue)\" id=\"\(e(document.key + "/" + (page.name?.fileName ?? String(page.number))))\">\n"
        h += "<h2>\(e(title)) <span class=\"status\">\(page.status.rawValue)</span></h2>\n"
        h += "<p>\(e(page.summary))</p>\n<table>"
        if let name = page.name { h += "<tr><th>golden</th><td><code>\(e(page.golden ?? document.goldenDirectory + "/" + name.fileName))</code></td></tr>" }
        if let c = page.comparison, c.sizesMatch {
            h += "<tr><th>differing pixels</th><td>\(c.differingPixels) of \(c.totalPixels) (allowed \(c.tolerance.maxDifferingPixels)\(page.allowance.map { ", --max-differing \($0)" } ?? ""))</td></tr>"
            h += "<tr><th>tolerance</th><td>\(c.tolerance.channelTolerance)/255; \(c.changedPixels) pixel(s) changed at all</td></tr>"
            h += "<tr><th>max / mean channel difference</th><td>\(c.maxChannelDifference) / \(String.fixed(c.meanChannelDifference, digits: 3))</td></tr>"
            h += "<tr><th>PSNR</th><td>\(c.psnr.isFinite ? String.fixed(c.psnr, digits: 1) + " dB" : "inf")</td></tr>"
        }
        h += "<tr><th>renderer</th><td>\(e(page.rendererVersion))\(page.goldenRendererVersion.map { "; golden recorded by \(e($0))" } ?? "")</td></tr>"
        h += "</table>\n"
        if page.status.fails && !page.status.cannotCompare { h += "<p>Records it: <code>\(e(recordCommand))</code></p>\n" }
        h += "<div class=\"row\">"
        for (label, src) in [("expected (golden)", expected), ("actual", actual), ("diff: red over the tolerance, yellow within", diff)] {
            if let src {
                h += "<figure><img src=\"\(e(src))\" alt=\"\(e(label))\" width=\"\(page.width)\" height=\"\(page.height)\">"
                h += "<figcaption>\(e(label))</figcaption></figure>"
            }
        }
        h += "</div>\n"
        if let expected, let actual {
            let size = "width=\"\(page.width)\" height=\"\(page.height)\""
            h += "<p>Overlay: left of the line the actual page, right of it the golden.</p>"
            h += "<div class=\"slider\" style=\"width:\(page.width)px\">"
            h += "<img src=\"\(e(expected))\" alt=\"expected\" \(size)>"
            h += "<img class=\"over\" src=\"\(e(actual))\" alt=\"actual\" \(size)>"
            h += "<input type=\"range\" min=\"0\" max=\"100\" value=\"50\" aria-label=\"overlay position\"></div>\n"
        }
        h += "</section>\n"
        return h
    }

    /// `path` relative to `directory` (both made absolute first), percent-encoded for a URL.
    static func relative(_ path: String, from directory: String) -> String {
        let p = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let d = URL(fileURLWithPath: directory).standardizedFileURL.pathComponents
        var common = 0
        while common < min(p.count, d.count) && p[common] == d[common] { common += 1 }
        let parts = Array(repeating: "..", count: d.count - common) + p[common...]
        return parts.map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? $0 }
            .joined(separator: "/")
    }
}
