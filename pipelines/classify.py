"""Classify acquired problems: multiple choice, proofs, multi-part, diagrams, several answers.

An RL reward needs one checkable answer to a self-contained statement. Proofs have none,
a problem whose figure is missing cannot be solved from its text, a part (b) may need part
(a), and an AMC letter is a 1-in-5 guess: those are marked here, and the unusable ones get
a `rejected:<reason>` status that keeps the reason (rejects are written, never dropped).
AMC problems are kept by resolving the keyed letter to that choice's value and dropping the
choices from the statement, unless the stem only makes sense with them ("Which of the
following ...").
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from typing import Any

from verifiers.forms import clean_choice, numbered_options, options
from verifiers.normalize import NUMBER_WORDS, TENS_WORDS, undoubled_backslashes

_PROOF = re.compile(
    r"\b(prove|proves|disprove|show that|show how|demonstrate that|justify your answer)\b", re.I
)
_ASKS = re.compile(
    r"\b(find|determine|compute|calculate|evaluate|what|how many|how much|which|who|simplify|solve|express|"
    r"give|list|for which)\b",
    re.I,
)
_PART_LABEL = re.compile(r"(?:^|\n|[.:;?]\s+|\s)\((?P<p>a|b|c|d|i|ii|iii|iv)\)\s", re.I)
_PART_REF = re.compile(
    r"\b(in|of|from) (the )?(part|question) \(?[a-d1-4]\)?|\b(previous|preceding|earlier) part\b", re.I
)
_PART_REF_LOOSE = re.compile(r"\bcondition in part\b|\bpart \([a-d]\)", re.I)
# a figure the statement points at ("the figure", "diagram below", "pictured"), not any use of the
# word ("action figures", "significant figures", "figure out")
_FIGURE = re.compile(
    r"\b(the|this|that|each|following|adjoining|accompanying|given|same) (figures?|diagrams?)\b|"
    r"\b(figures?|diagrams?) (below|above|shown|here|at (the )?(right|left))\b|\bpictured\b|"
    r"\b(in|see|from) (a |the )?(figure|diagram)\b|\bfig(ure)?\.? ?[A-Z]{0,2}\d",
    re.I,
)
_SHOWN = re.compile(r"\bshown (below|above|here|at (the )?(right|left))\b", re.I)
_SHOWN_IN_TEXT = re.compile(
    r"\n\s*\||\\begin\{(tabular|array)|\$\$|\\\[|<table\b"
)  # a table or display the text carries (Markdown, LaTeX, HTML)
# an image the statement links (`<img src=...>`, `![graph](...)`): its data are not in the text
_IMAGE = re.compile(
    r"<img\b|!\[[^\]]*\]\(|<image\s*_?\d*>|<ImageHere>|\[image\s*\d*\]"
    # a figure a document's markup draws (MyST `:::{plot}`, Sphinx `.. figure::`, LaTeX `\includegraphics`)
    r"|:::\s*\{(?:plot|figure|image)\}|```\s*\{(?:plot|figure|image)\}|^\.\.\s+(?:figure|image|plot)::|\\includegraphics"
    r"|<svg\b",  # an inline drawing
    re.I | re.M,
)  # also a benchmark's image slot (`<image1>`, MathVista's `<image>`)
# a picture or a drawn shape the statement points at: `in the image`, `see the picture`, `the rectangle above`
_PICTURE = re.compile(
    r"\bsee (?:the |this |these )?(?:images?|pictures?|photos?)\b"
    r"|\b(?:in|from) (?:this|these) (?:images?|pictures?|photos?)\b"
    r"|\b(?:images?|pictures?|photos?) (?:below|above|shown)\b"
    r"|\bin (?:the )?image\s*[?.,]"  # `the age gap between these two people in image?`; `the image of A` is a map's
    r"|\bthe (?:rectangle|triangle|square|circle|shape|trapezoid|polygon|prism|cube|grid|number line|graph|chart|table|"
    r"clock|spinner|figure) (?:above|below)\b",
    re.I,
)
# a measure of a shape asked where the statement gives no number at all (`Find the perimeter of the orange square.`,
# `Find the surface area of the rectangular prism.`): its dimensions are in a figure (an angle may be the shape's own:
# `the sum of the angles in a hexagon`, and a side count is); and a function or graph
# pointed at and never written (`Find the largest zero of this cubic function.`)
_SHAPE_MEASURE = re.compile(
    r"\b(?:area|perimeter|volume|circumference|height|length|width|radius|diameter)s?\b[^.?]*\b(?:square|"
    r"rectangle|triangle|circle|prism|cube|cylinder|cone|sphere|pyramid|trapezoid|polygon|hexagon|pentagon|shape|solid|"
    r"figure|region|parallelogram|rhombus)s?\b",
    re.I,
)
_THIS_FUNCTION = re.compile(r"\bthis (?:\w+ ){0,2}(?:function|graph|curve|plot|polynomial)\b", re.I)
_SEVERAL = re.compile(
    r"\b(find|determine|list|give) all\b|\ball (possible )?(values|solutions|pairs|triples|integers|numbers|"
    r"real numbers|functions|polynomials)\b",
    re.I,
)
_CHOICE_DEPENDENT = re.compile(
    r"\bwhich (one )?of the following\b|\bwhich (statement|graph|of these)\b|"
    r"\bthe following (is|are|must|could)\b|\bmust be true\b|"
    # Chinese: "which of the following" (下列, 以下, 其中正确的), and a blank the options complete (`则 ( )`,
    # `是“...”的 ( )`: a statement or a condition is chosen, not a value)
    r"下列|以下[^，,。]{0,12}(?:正确|错误|成立|是)|其中[^，,。]{0,8}(?:正确|错误|真命题|假命题)|"
    r"(?:正确|错误|成立)的(?:是|有)|[则的]\s*(?:[(（]\s*(?:\\q?quad)?\s*[)）])?\s*$",
    re.I,
)
# another problem's answer or a contest relay ("the number you will receive from position 7", TNYWR,
# "let T be the answer to problem 3", "the previous question", "in Example 2.3", "Exercise 4")
_OTHER_PROBLEM = re.compile(
    r"\bnumber you will receive\b|\bT\s*N\s*Y\s*W\s*R\b|\b(answer|result|value) (to|of|from|in) (the )?(previous|"
    r"preceding|last|prior|above|earlier) (problem|question|exercise|example|part)\b|"
    r"\b(answer|result|value) (to|of|from|in) (problem|question|exercise|example|part) \(?[\w.]+\)?|"
    r"\bfrom position \d+\b|\b(the|this|that) (previous|preceding|prior|above|last) (problem|question|exercise|"
    r"example|part)\b|\b(in|from|of|see|using|use|as in) (the )?(problem|exercise|example|question|section|"
    r"appendix) \d+(\.\d+)*[a-z]?\b|\b(in|from|of|see|using|use) (the )?(problem|exercise|example) "
    r"\d+(\.\d+)*\(\w\)|上一?题|上题|前一问|第\s*\(?\d\)?\s*问"
    # Korean `위의 숫자에서` ("in the number above", opening a sentence: `책상 위의` is "on the desk"), `앞의 문제`,
    # `이전 문제` ("the previous problem"); Japanese `前の問題`, `上の問題`
    r"|(?:^|[.?!。]\s*)위의\s*(?:숫자|수|식|표|문제|자료|그래프|조건)|(?:앞|이전)의?\s*문제|前の問題|上の問題|前問",
    re.I,
)
# a reference that hands over the value it refers to (MetaMathQA's FOBAR rows: `If we know the answer to the above
# question is 5, what is the value of unknown variable X?`, the question being the statement's own first part)
_VALUE_STATED = re.compile(r"\s*(?:is|was|equals|=)\s*\$?\s*-?\d")


def refers_to_other_problem(text: str) -> str | None:
    """The first reference to another problem's answer, a relay's or an earlier question's, that the statement does
    not itself give the value of, or None."""
    for m in _OTHER_PROBLEM.finditer(text):
        if not _VALUE_STATED.match(text, m.end()):
            return m.group(0)
    return None


# data that lives outside the statement: a table, chart or data set it names but does not carry
# ("the data in Table 2.2", "the table below", "the following data"); checked against the text
# carrying a table or display itself, as figures are
_OUTSIDE_DATA = re.compile(
    r"\b(table|chart|graph|data set|dataset|exhibit) \d+(\.\d+)*\b|\bthe (following|above|given|accompanying|"
    r"subsequent|attached|provided) (table|chart|data|graph|exhibit|information|transactions)\b|"
    r"\b(table|chart|graph|exhibit) (below|above|shown)\b|\bin the table\b|\bfrom the (table|chart|graph)\b|"
    r"\b(based on|using|given|from) the (collected|provided|relevant|available) (data|information)\b|"
    r"\bfor the relevant information\b|\bthe scatter ?plot\b|\bthe line of best fit (?:shown|in the)\b|如下表|下表|表中|统计图|统计表"
    # German, Spanish, French, Italian, Portuguese charts and tables named (`aus dem Kreisdiagramm`, `la tabla`)
    r"|\b\w*diagramm\b|\bSchaubild|\b(?:der|die|dem|den) Tabelle\b|\b(?:el|del|la|en la) (?:gráfico|gráfica|tabla)\b"
    r"|\b(?:le|du|ce) (?:graphique|diagramme|tableau)\b|\b(?:il|la|nel|nella) (?:grafico|tabella)\b"
    r"|\b(?:o|a|no|na) (?:gráfico|tabela)\b",
    re.I,
)


def outside_data(text: str) -> str | None:
    """The first reference to data the statement does not carry (`the data in Table 2`, `the table below`), or None.
    `the above information` (or data) after two sentences of setup is the statement's own (`... Based upon the above
    information, how many orders are possible?`); as a statement's opening it is an earlier item's."""
    for m in _OUTSIDE_DATA.finditer(text):
        own = (
            re.fullmatch(r"the above (?:information|data)", m.group(0), re.I)
            and len(sentences(text[: m.start()])) >= 2
        )
        if not own:
            return m.group(0)
    return None


# a template's slots where the numbers should be (`costs number0 dollars`, `[NUM1]`): the values live elsewhere in
# the row (SVAMP/ASDiv-style "Numbers" fields), so the statement alone has no answer
_PLACEHOLDER = re.compile(r"\bnumber\d+\b|\[NUM\d*\]|<NUM\d*>|\bNUM_\d+\b", re.I)
# a definition whose expression was lost in scraping (`設a＝，b＝，則`, `若的整數部分為x`): nothing to compute with
_LOST_EXPRESSION = re.compile(
    r"(?:設|设|令|已知|若|\b[Ll]et|\b[Ii]f)\s*[A-Za-z]{1,2}\s*[=＝]\s*[，,；;。]|[若設设]的"
    r"|(?:/g\d{1,3}){2,}"  # PDF glyph codes where an equation was (`xx22/g14/g14xx/g16/g322`)
)
# an integer key for a probability or an expectation whose integer form the statement never states (DAFT-Math's
# "where $Answer is an integer" over "Compute the probability ..."): the key encodes something unsaid
_PROBABILITY_ASKED = re.compile(
    r"\b(?:compute|find|determine|calculate|what is|what's|give)\s+(?:the\s+)?probability\b|[概機]率(?:是|为|為)\s*(?:多少|[_＿]|\\q?quad|[(（]\s*[)）]|\.?\s*$)",
    re.I,
)
_EXPECTATION_ASKED = re.compile(r"\bexpected (?:number|value)\b|\basymptotic density\b", re.I)
_INTEGER_DEMANDED = re.compile(r"\$?Answer\$? is an integer|answer (?:is|must be|should be) an integer", re.I)
_ENCODING_STATED = re.compile(
    r"\b(?:written|expressed)\s+(?:in the form|as)\b|relatively prime|coprime|\bremainder\b|\bnearest\b|\bround|"
    r"\bfloor\b|\bceil|\bpercent|\bmod\b|\bdigits?\b|\bnumerator\b|\bdenominator\b|"
    r"(?:find|compute|what is|determine|calculate)\s+\$?\s*\d*\s*[a-z]\s*[+-]\s*\d*\s*[a-z]\b",
    re.I,
)


# a statement cut off at its ask (`... the stress produced equals 6.2e7 N m^-2. Determine`)
_ASK_LOST = re.compile(r"\b(?:determine|calculate|find|compute|evaluate|what is)\s*[:.]?\s*$", re.I)


def unstated_encoding(text: str, key: str) -> bool:
    """An integer key (2 or more) for a probability, or for an expectation or density the statement insists is an
    integer, when the statement states no integer form (m/n and m+n, a remainder, a rounding): the key encodes an
    answer the statement does not ask."""
    m = re.fullmatch(r"\s*\$?\s*(\d+)(?:\.0+)?\s*\$?\s*", key)
    if m is None or int(m.group(1)) < 2 or _ENCODING_STATED.search(text):
        return False
    return bool(_PROBABILITY_ASKED.search(text)) or bool(
        _EXPECTATION_ASKED.search(text) and _INTEGER_DEMANDED.search(text)
    )


# statements that hold a second problem or its key (leaked from a few-shot prompt)
_MALFORMED = re.compile(r"<(Answer|Question|Next Instance)>", re.I)
# figures named in statements not written in English: Chinese (as shown in the figure, in the figure), and others
_FIGURE_OTHER_LANGUAGES = re.compile(
    "如图|图中|见图|下图|右图|左图|图片"
    # Vietnamese `hình vẽ`, Indonesian `gambar`, Portuguese/Spanish `figura`, French `la figure`,
    # German `Abbildung`, Turkish `şekil`, Polish `rysunek`, Czech `obrázek`, Russian `рисунок`
    r"|hình vẽ|hình bên|\b(?:pada|dalam) gambar\b|\bgambar (?:di )?(?:bawah|berikut|samping)\b|\b(?:na|da|en la|de la) figura\b"
    r"|\b(?:la|sur la|de la) figure\b|\bAbbildung\b|\bşekil(?:de|deki)\b|\brysun(?:ek|ku|kach)\b|\bobrázk?(?:u|em|ek)\b"
    r"|\bрисун(?:ок|ке|ка)\b"
    # Macedonian/Serbian `прикажано` ("shown", as the English `as shown`: `на сликата` alone, "in the picture", is not
    # read, as the English is not), Russian/Bulgarian `чертёж`, `показано на`, Ukrainian `малюнок`
    r"|\bприкажан[оиа]?\b|\bчерт[её]ж[аеу]?\b|\bпоказан[оаы]?\s+на\b|\bмалюн(?:ок|ку|ка)\b"
    # Spanish/Italian `como muestra la figura`, `nella figura`, `in figura`; Japanese `図のように`, `下の図`; Korean `그림`
    r"|\b(?:la|las|nella|della|in|a) figuras?\b|図の|の図|図で|図に|그림과 같|(?:다음|아래|위의?) 그림|그림에서|그림을 보고"
    # Norwegian, Danish, Swedish `I grafen nedenfor` ("in the graph below"), `figuren ovenfor`, `i figuren`
    r"|\b(?:figuren|grafen|tegningen|diagrammet|bildet|billedet|bilden)\s+(?:nedenfor|ovenfor|nedan|ovan)\b|\bi figuren\b",
    re.I,
)
# a region named by its shading or colour (`the shaded region`, `es gris`, `阴影部分`): drawn, not described
_SHADED = re.compile(
    r"\bshaded\s+(?:regions?|areas?|parts?|portions?|squares?|triangles?|figures?|sectors?)\b"
    r"|\bgr[ae]y(?:ed)?\s+(?:regions?|areas?|parts?|portions?)\b"
    r"|\b(?:área|región|parte|zona|regi[ãa]o|superf[ií]cie)\s+(?:sombreada|gris|cinza)\b|\bes gris\b"
    r"|\bschraffiert|\bgrisée|阴影",
    re.I,
)
_SHOWN_LOOSE = re.compile(
    r"\b(as shown|the (?:\w+ ){1,3}shown|is shown|are shown|shown (?:is|are)|depicted)\b|,\s*shown\s*,", re.I
)
# estimation, order of magnitude, significant figures: the key is an approximation by design
_ESTIMATE = re.compile(
    r"\b(estimate|estimated|estimation|approximately|approximate|roughly|about how (many|much|far|long)|most nearly|"
    r"order of magnitude|nearest power of (ten|10)|significant (figures|digits))\b|估计|估算|近似|大约|约[为是有需行多等]",
    re.I,
)
# rounding asked for: the key is exact under the statement's own rule (kept, the phrase travels along)
ROUNDING = re.compile(
    r"(?:to|round(?:ed)?(?: off)?(?: your answer)?(?: to)?|correct to|accurate to)\s+(?:the\s+)?"
    r"(?P<what>nearest\s+(?:whole\s+number|integer|whole|tenth|hundredth|thousandth|ten-thousandth|"
    r"cent|dollar|percent|degree)s?|(?P<k>one|two|three|four|five|\d)\s+decimal\s+places?)"
    r"(?:\s+of\s+an?\s+\w+)?|精确到|保留",
    re.I,
)
# answers that are several values by the statement's own wording (one of many, or several blanks)
# (no unique answer: "find an N such that", "give an example", "find a value of x for which", "find any")
_ONE_OF_MANY = re.compile(
    r"\b(one|a|any|some) possible values?\b|\b(give|find|write( down)?|name|provide|construct|exhibit|state) "
    r"(one|an|any|some) (examples?|values?|such|solution)\b|\b(give|provide|construct|exhibit|find) an example\b|"
    r"\bfor example,? (find|give|write)\b|\b(find|give|determine|choose|name|write( down)?) (a|an|any|some|one) "
    r"([\w$\\{}^()]+\s+){0,3}?(such that|for which|so that|that satisf|satisfying|with the property)|"
    r"\b(find|give|name|write( down)?) (another|one more)\b|"
    r"\b(would|could|might) be an? (appropriate|acceptable|reasonable|suitable|possible)\b|"
    r"写出一个|一个符合|任意一个|一个取值|一个值|写出满足|举出一个|举一个|的一个(?:整数|正整数|实数)?解|可能是|可以是",
    re.I,
)
# a number given by its absolute value (`Find a number whose absolute value is 15`, `Znajdź liczbę, której wartość
# bezwzględna wynosi 15`): two numbers have it, unless the statement says which sign
_BY_ABSOLUTE_VALUE = re.compile(
    r"\b(?:whose|której|którego|cuyo|cujo|dont\s+la|deren|dessen|которого|у\s+которого)\s+"
    r"(?:absolute\s+value|wartość\s+bezwzględna|valor\s+absoluto|valeur\s+absolue|betrag|модуль)",
    re.I,
)
_SIGN_NAMED = re.compile(
    r"\b(?:positive|negative|dodatni\w*|ujemn\w*|positiv\w*|negativ\w*|положительн\w*|отрицательн\w*)", re.I
)
# a mark asked for on the number line (`Wskaż liczbę -3 na osi liczbowej`, `Mark 7 on the number line`): a drawing
_MARK_ON_LINE = re.compile(
    r"^\s*(?:\d{1,3}[.)]\s*)?(?:mark|plot|indicate|show|locate|draw|place|represent|graph|wskaż|zaznacz|narysuj|"
    r"marca|ubica|representa|indique|placez?|trace|markiere|zeichne|отметьте|изобразите|biểu\s+diễn)\b[^?]*"
    r"\b(?:number\s+line|osi\s+liczbowej|recta\s+numérica|reta\s+numérica|droite\s+(?:graduée|numérique)|"
    r"zahlenstrahl|(?:числовой|координатной)\s+прямой|trục\s+số)",
    re.I,
)
# an answer asked in another base (`expressing your answer in base $5$`, `in base 6?`): a numeral, not the integer its
# digits spell (`12_5` is seven); base ten asked is the integer itself
_BASE = r"in\s+base\s*\$?\s*\{?\s*(\d+|two|three|four|five|six|seven|eight|nine|twelve|sixteen)\b"
_OTHER_BASE_ASKED = re.compile(
    r"\b(?:express(?:ed|ing)?|write|give|convert|leave)\b[^.?]{0,60}?\b"
    + _BASE
    + r"|\bwhat\s+(?:number|numeral|is)\b[^?]{0,60}?\b"
    + _BASE
    + r"[^?]{0,8}\?",
    re.I,
)  # asked, not described: `can be written in base $6$ as ...` names a given numeral
# a conversion asked into a base by its name (`Hexadecimal to binary: 0xff`, `Convert 45 to binary`, `write it in hex`)
_NAMED_BASE_ASKED = re.compile(
    r"\b(?:to|into)\s+(?:binary|octal|hex(?:adecimal)?)\b|\b(?:express|write|give|convert|answer)\b[^.?]{0,40}?\bin\s+"
    r"(?:binary|octal|hex(?:adecimal)?)\b"
    # `Convert 7 to base 5.`, `into base-3`; a blank with the base under it (`$$194=\_\_\_\__5$$`)
    r"|\b(?:to|into)\s+base[\s-]*\$?\{?\s*(?!10\b)\d+\b|(?:\\_|_){3,}\s*_\{?\s*(?!10\b)\d{1,2}\b",
    re.I,
)
# a letter-coding puzzle (`If PALE is coded as 2134, ... how is PEARL coded?`): its key is a code string, not a quantity
_LETTER_CODE = re.compile(
    r"\b(?:is|are)\s+(?:coded|encoded)\s+as\b|\bhow\s+(?:is|will|would)\b[^?]{0,40}?\b(?:be\s+)?(?:coded|encoded)\b"
    r"|\bin\s+a\s+certain\s+code\b",
    re.I,
)
# a statement that is one Markdown heading and nothing else (`### Вариант 1`): an exam sheet's label, no problem
# what an empty stem template holds besides its question: empty math spans, option slots, a bracketed note
_EMPTY_STEM_MARKUP = re.compile(r"\$\s*(?:[A-E]\s*[:.)]?\s*)?\$|\[[^\]\n]*\]|<[^>]+>|\b[A-E]\s*[:.)]")
_HEADING_ONLY = re.compile(r"\A\s*#{1,6}[ \t]+[^\n?]{0,80}\s*\Z")
_HEADING_ASKS = re.compile(r"\b(?:find|compute|calculate|evaluate|what|how|solve|simplify|determine)\b", re.I)

# "how many", "what is", "find": a number is asked besides any "how can"
_ASKS_NUMBER = re.compile(
    r"\bhow (?:many|much|long|far|old|large|big|fast|tall|high|often)\b|\b(?:what|find|compute|calculate|determine) (?:is|was|are|the)\b",
    re.I,
)
# a construction asked for ("How can he do this?", "How could he do it? Provide two possibilities."): a number is
# no answer to it
_CONSTRUCTION = re.compile(
    r"(?:^|[.?!]\s+)how (?:can|could|should|would|might|do|does|did) (?!(?:\w+ ){0,3}?(?:many|much|long|far|old|large|"
    r"big|fast|tall|high|often)\b)[^?.]*\?|\bprovide (?:two|three|several|all) (?:possibilities|ways|examples)\b",
    re.I,
)
# several asks in one statement collapsed to one key: "find $g(2)$ and $g'(2)$", "find a and b",
# "what are the values of", "respectively", two question sentences
_SEVERAL_ASKS = re.compile(
    r"\b(find|compute|determine|calculate|evaluate|what (are|is|were))\s+(the\s+values?\s+of\s+|both\s+)?"
    r"(\$[^$]{1,40}\$|[a-zA-Z](\([^)]{0,8}\))?)\s*(,\s*(\$[^$]{1,40}\$|[a-zA-Z])\s*,?)*\s*(and|,)\s*"
    r"(\$[^$]{1,40}\$|[a-zA-Z](\([^)]{0,8}\))?)(?=\s*[.?,;]|\s*$|\s+(if|when|for|where|given|such|in|of|at)\b)|"
    r"\bwhat are the values\b|\bfind the values\b|\b(what are|find|determine) the (\w+ )?(dimensions|coordinates)\b|"
    # `Find the two numbers.` (DRAW-1K, ALG-514): one value per number
    r"\b(find|what are|determine|name)\s+(the\s+)?(two|three|both)\s+numbers\b(?!\s*['’])|"
    r"各是多少|各多少",
    re.I,
)
_OF_EACH = re.compile(r"\bhow (?:many|much) of each\b", re.I)
# `There are equal numbers of 25 paise, 50 paise and one rupee coins. How many of each are there?`: one count for all
_SAME_COUNT = re.compile(r"\b(?:equal|same)\s+(?:number|amount|quantity)", re.I)
# "respectively" / "both" in the sentence that asks (in the premise it only names things)
_SEVERAL_IN_ASK = re.compile(r"\brespectively\b|分别", re.I)
# a second question that restates the first in an integer form ("The answer can be written ... What is m+n?")
_RESTATED = re.compile(
    r"can be (written|expressed|represented)|the (final )?answer (is|has|can)|answer in the form", re.I
)
_BLANK = re.compile(r"\(\s*\\quad\s*\)|\\qquad|_{3,}|(?:\\_){2,}|（\s*）|\(\s*\)")
# a yes/no or pick-a-label question whose key is a code ("Answer 1 for yes and 0 for no", "Does the
# series converge?" keyed 1.0, "Answer with 1 or 2 or 3"): a guess, not a computed number
_CODED_ANSWER = re.compile(
    r"\banswer (with )?[01] (for|if) (yes|no|true|false)\b|\b[01] (for|if) (yes|true)\b|\btrue or false\b|"
    r"\b(answer|respond|reply) with \d( or \d)+\b|\b(answer|respond|reply) with \d(, \d)+,? or \d\b",
    re.I,
)
_AUX_QUESTION = re.compile(
    r"^\s*(is|are|does|do|did|can|could|will|would|has|have|must|should|was|were)\b[^?]*\?\s*$", re.I
)
_YES_NO = re.compile(r"^\s*\$?\s*(\\text\{)?\s*(yes|no|true|false|是|否)\s*\}?\s*\$?\s*\.?\s*$", re.I)
# complex numbers in the statement: a real-looking key may have dropped its `i`
_COMPLEX = re.compile(
    r"\\mathrm\{i\}|\\operatorname\{i\}|imaginary unit|complex number|虚数|复数|\bi\s*\^\s*\{?2\}?\s*=\s*-\s*1|"
    r"\d\s*[+-]\s*\d*\s*i\b",
    re.I,
)
# science and applied statements: the key is a computation with physical constants, logarithms,
# tabulated or measured data, so its last digits depend on the constants chosen (a rule never keeps it)
_SCI_CONSTANTS = re.compile(
    r"\b(planck|boltzmann|avogadro|rydberg|faraday|coulomb'?s? constant|gas constant|gravitational constant|"
    r"speed of light|elementary charge|electron (mass|charge)|permittivity|permeability|bohr|"
    r"acceleration (due to|of) gravity|molar mass|atomic mass|molecular (mass|weight)|formula mass|atomic weight|"
    r"standard (state|conditions)|stp|escape velocity|"
    r"(mass|radius) of the (earth|moon|sun)|earth's (mass|radius)|moon's (mass|radius))\b|"
    r"\bg\s*=\s*9\.8|\b(h|k|R|c)\s*=\s*\d+(\.\d+)?\s*(\\times|×)",
    re.I,
)
_SCI_UNITS = re.compile(
    r"\\mathrm\s*\{\s*~?\s*(mol|kJ|J|eV|keV|MeV|nm|pm|fm|Pa|kPa|MPa|atm|bar|Torr|dm|K|Hz|kHz|MHz|"
    r"W|kW|V|mV|A|mA|C|T|N|cal|kcal|Bq|Ci|Gy|Sv)\b(?!\s*\\angle)|"
    r"\d\s*(mol|kJ|eV|keV|MeV|kPa|MPa|atm|Torr|Hz|kHz|MHz|mmHg|nm)\b|\bm\s*/\s*s\b|"
    # per mole (`M_Cu = 63.5 g/mol`, `F = 96,485 C/mol`) and a unit to a negative power (`0.0693 s⁻¹`, `s^{-1}`)
    r"/\s*mol\b|\d\s*(s|min|h|mol|K|m|L|g|kg|J)\s*(⁻[¹²³]|\^\s*\{\s*-\s*[123]\s*\})|"
    # picometres, not a clock: `74 pm`, but neither `3:20 pm` nor `8 pm`
    r"(?<![\d:.])(?!(?:1[0-2]|[1-9])\s*pm\b)\d[\d.]*\s*pm\b|"
    r"\b(joules?|newtons?|pascals?|kelvins?|watts?|volts?|amperes?|ohms?|coulombs?|teslas?|"
    r"electronvolts?|hertz|kilojoules?|calories|molar)\b|°\s*C\b|\^\s*\{?\\circ\}?\s*\\mathrm\{C\}|"
    # the amount of substance, not the animal ("whack a mole"): a count or "of"/"per" beside it
    r"\b(\d[\d.]*|one|two|three|half a|per|each)\s*moles?\b|\bmoles? (of|per)\b|\bhow many moles\b|"
    # unit markup of physics texts (siunitx `\\qty{20}{\\degreeCelsius}`, `\\SI{..}{..}`, the units package's
    # `\\unit[2,5]{m/s^2}`) and temperatures in Celsius (a gas law's 273.15 is a constant the key rounds with)
    r"\\(qty|SI|si|unit|units|SIrange)\s*[\[{]|\\(degreeCelsius|celsius)\b|[º˚]\s*C\b|℃",
    re.I,
)
_SCI_WORDS = re.compile(
    r"\b(enthalpy|entropy|gibbs|thermodynamic\w*|heat capacity|specific heat|perfect gas|ideal gas|"
    r"wavelength|photons?|electrons?|protons?|neutrons?|atoms?|atomic|molecules?|molecular|isotopes?|nucle(us|i|ar)|"
    r"half-life|radioactiv\w*|decay constant|velocity|acceleration|momentum|kinetic energy|potential energy|"
    r"friction|voltage|resistance|capacitor|capacitance|inductance|magnetic|electric (field|charge|potential)|"
    r"orbit(al)?|gravitational|density|molarity|concentration|equilibrium constant|reaction|spectr\w*|"
    r"quantum|wave ?function|oscillat\w*|spring constant|pendulum|projectile|torque|pressure|temperature|"
    r"vapou?r|solubility|ionization|dipole|frequency|spin|diffraction|refract\w*|lens|pH|pKa|acids?|"
    r"alkaline|titrat\w*|buffer|"
    # materials science: crystal geometry is measured (`the angle between [111] and [100] in a cubic crystal`: 54.74)
    r"(?-i:crystal\w*)|lattice (?!points?\b|paths?\b)\w+|cubic system|unit cell|dislocations?|burgers?\W{0,2}s? vector|"
    r"fcc|bcc|hcp|miller ind\w*|surface energy|grain (size|boundar\w*)|"
    r"standard deviation|variance|confidence interval|significance level|p-value|hypothesis test|"
    r"normal distribution|z-score|t-distribution|sample mean|regression|"
    r"compound(ed)? interest|interest rate|annual(ly)? rate|compounded|depreciat\w*|exponential(ly)? "
    r"(growth|decay)|population (grows|growth)|growth rate)\b|物理|化学|溶液|浓度|速度|加速度|压强|温度|"
    # the same vocabulary in the languages of the sources (Spanish, Portuguese, French, German, Italian,
    # Turkish, Indonesian, Russian, Japanese, Korean): physics and chemistry terms, not everyday rates
    r"\b(aceleraci[óo]n|acelera[çc][ãa]o|acc[ée]l[ée]ration|accelerazione|beschleunigung|fallbeschleunigung|"
    r"fuerza|for[çc]a|forza|kraft|kuvvet|energ[íi]a|[ée]nergie|energia|enerji|energi|"
    r"presi[óo]n|press[ãa]o|pression|pressione|druck|bas[ıi]n[çc]|tekanan|"
    r"temperatura|temp[ée]rature|temperatur|s[ıi]cakl[ıi]k|suhu|densidad|densidade|densit[ée]|densit[àa]|dichte|"
    r"masse volumique|massa jenis|yo[ğg]unluk|disoluci[óo]n|soluci[óo]n acuosa|concentraci[óo]n|concentra[çc][ãa]o|"
    r"molaridad|molaridade|molarit[ée]|masa molar|massa molar|masse molaire|molmasse|"
    r"[áa]tomos?|atomes?|mol[ée]culas?|mol[ée]cules?|reacci[óo]n|rea[çc][ãa]o|r[ée]action chimique|reaktion|"
    r"rozamiento|atrito|frottement|reibung|gravedad|gravidade|pesanteur|schwerkraft|"
    r"wirkungsgrad|federkonstante|stromst[äa]rke|spannung|widerstand|wellenl[äa]nge|frequenz|"
    r"voltaje|corriente el[ée]ctrica|longitud de onda|intensit[ée] du courant|tension [ée]lectrique|"
    r"ускорени\w*|давлени\w*|температур\w*|плотност\w*|энерги\w*|напряжени\w*|сопротивлени\w*)\b|"
    r"加速度|圧力|温度|密度|電圧|電流|抵抗|エネルギー|가속도|압력|온도|밀도|전압|전류",
    re.I,
)
# quantitative finance: option prices, utility, present values are computed with e^x, roots or
# tables, so even an integer-looking key (108610) may be a rounding
_FINANCE_MODEL = re.compile(
    r"\b(call option|put option|options? price|strike price|volatility|risk-free|black-scholes|binomial "
    r"(lattice|tree)|utility function|certainty equivalent|present value|future value|annuity|annuities|"
    r"yield to maturity|bond price|coupon (rate|payment)|forward (price|rate)|continuously compounded|"
    r"continuous(ly)? (interest|compounding))\b",
    re.I,
)
# inference from tables (z, t, chi-square): an integer key such as a sample size is read off a table
_TABLE_STATS = re.compile(
    r"\b(confidence (interval|level|coefficient)|significance level|level of significance|p-value|"
    r"hypothesis|null hypothesis|H_?\{?0\}?\s*:|z-score|t-distribution|chi-square|normal distribution|"
    r"normally distributed|standard normal)\b|H_\{?0\}?\s*:",
    re.I,
)
# quantities measured in units (an applied setting: a non-integer key is a measurement's computation)
_MEASURED = re.compile(
    r"\\mathrm\s*\{\s*~?\s*(m|cm|mm|km|ft|in|mi|yd|g|kg|mg|lb|s|min|h|hr|L|mL)\s*\}|"
    r"\b(m|km|mi|ft)\s*/\s*(s|h|hr|min)\b|\\mathrm\{\s*~?\s*(m|km|mi|ft)\s*\}\s*/\s*\\mathrm\{\s*(s|h|min)\s*\}|"
    r"\d\s*(平方|立方)?(米|厘米|分米|千米|毫米|公里|公顷|克|千克|公斤|吨|升|毫升|元)|"
    r"\d\s*(cm|mm|km|kg|mg|m|g|ft|mi|yd|lb|oz|mL)\b(?!\s*[=(])",
    re.I,
)
# a speed in a textbook's unit notation (km/hr, m/s): kinematics, computed with g or measured data
_SPEED = re.compile(
    r"\b(m|km|mi|ft)\s*/\s*(s|h|hr)\b|\\mathrm\{\s*~?\s*(m|km|mi|ft)\s*\}\s*/\s*\\mathrm\{\s*(s|h|hr)\s*\}",
    re.I,
)
_SCI_NOTATION = re.compile(
    r"\d\s*(\\times|×|\\cdot)\s*10\s*(\^|[\u207b\u2070\u00b9\u00b2\u00b3\u2074-\u2079])|\b\d(\.\d+)?[eE][+-]?\d+\b"
)  # `1.5\times 10^8`, `1.5×10⁸`, `1.5e8`
_LOGS = re.compile(r"\\ln\b|\\log|\blog(arithm)?s?\b|\bln\s*\(|\be\s*\^", re.I)
# the statement hands over an approximation to compute with ("use pi = 3.14", "log 2 = 0.3010")
_GIVEN_APPROX = re.compile(
    r"\\approx|≈|\b(use|using|take|taking|let)\s+(the value( of)?\s+)?\$?\\?(pi|π|e|g|sqrt)\b[^.]{0,20}?"
    r"(=|as|is)\s*\$?\d|\b(pi|π)\s*=\s*3\.1|\blog\s*\d+\s*=\s*0?\.\d",
    re.I,
)


# the text signals of a science or applied computation, in the order they are reported
_SCIENCE_SIGNALS = (
    ("physical constant", _SCI_CONSTANTS),
    # the weight of a mass asked (`the weight of an object with a mass of 5 kg`, `of a 15 kg object on Earth`): g, not
    # given (`a mass that weighs 8 lb` gives the weight)
    (
        "physical constant",
        re.compile(
            r"\bweigh(?:t|s)?\b[^.?]{0,60}\b(?:mass\b|on (?:the )?(?:Earth|Moon|Mars|Jupiter)\b|in newtons\b)",
            re.I,
        ),
    ),
    ("science unit", _SCI_UNITS),
    ("scientific notation", _SCI_NOTATION),
    ("science or applied vocabulary", _SCI_WORDS),
    ("logarithm or exponential", _LOGS),
    ("given approximation", _GIVEN_APPROX),
    ("statistical table", _TABLE_STATS),
    ("finance model", _FINANCE_MODEL),
    ("measured quantity", _MEASURED),
    ("speed unit", _SPEED),
)


def science_signals(text: str, extra: dict | None = None) -> list[str]:
    """Why a statement is science or applied (its key depends on constants or data), or [].

    Strong signals (constants, units of science, a source `unit` field, inference from a
    statistical table, science words with measured or scientific-notation data) make any key a
    computation, an integer one included; vocabulary, scientific notation, logarithms, given
    approximations and quantities in units matter for non-integer keys.
    """
    text = text or ""
    out = []
    if extra and str(extra.get("unit") or "").strip():
        out.append("source unit field")
    out += [label for label, pattern in _SCIENCE_SIGNALS if pattern.search(text)]
    # science words and a number in scientific notation: a computation on measured data
    if "science or applied vocabulary" in out and (
        "scientific notation" in out or "measured quantity" in out
    ):
        out.append("science data")
    return out


STRONG_SCIENCE = {
    "source unit field",
    "physical constant",
    "science unit",
    "statistical table",
    "science data",
    "finance model",
}


_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
# a year or a date (`31 December 2010`, `December 31, 2010`): when, not data
_YEAR = re.compile(
    r"\b(?:\d{1,2}(?:st|nd|rd|th)? " + _MONTH + r",? )?(?:" + _MONTH + r" \d{1,2}(?:st|nd|rd|th)?,? )?"
    r"(?:1[89]|20)\d\d\b"
)
_ANY_NUMBER = re.compile(
    r"\d|\b(?:"
    + "|".join((*NUMBER_WORDS, *TENS_WORDS))
    + r"|hundred|thousand|million|half|third|quarter|once|"
    r"twice|single|double|triple|pair|dozen|first|second|last)\b|[零一二两三四五六七八九十百千万半]",
    re.I,
)
_AMOUNT_ASKED = re.compile(
    r"\b(?:what (?:is|was|were|are|would be) the (?:\w+ ){0,3}?(?:total|change|amount|percentage|difference|average|"
    r"ratio|increase|decrease|value|sum|growth|net|balance|cost|revenue|income|expenses?|loss|profit|gain|price|"
    r"depreciation|amortization|impairment|dividend|earnings|tax)|in which year|how (?:much|many))\b",
    re.I,
)


def _rounding_without_data(text: str) -> bool:
    """A rounding asked of a statement with no number and no constant to compute from (`Find the upper limit of the
    interval. (Round to one decimal place.)`: a follow-up whose data was in an earlier record)."""
    phrase = rounding_asked(text)
    if phrase is None:
        return False
    # `the two endpoints` names objects the data describes (in an image the source left out), no number to use
    rest = re.sub(r"\bthe\s+(?:two|three|four|both)\b", " ", text.replace(phrase, " "), flags=re.I)
    constant = re.search(r"\\pi|π|\bpi\b|\\sqrt|√|root|\blog|\bln\b|\\ln|\be\b|\\e\b|golden", rest, re.I)
    return not (constant or _ANY_NUMBER.search(rest))


def no_data(text: str, answer: str | None) -> bool:
    """A numeric key for a statement that holds no data: no number but years or dates (`what was the change
    in the amount for Appliances in 2019 from 2018?`, a question over a table the source left out), or a
    rounding asked with nothing to compute from. Without a year it is no sign of a missing table (`How many
    edges does a cube have?`)."""
    if answer and re.search(r"\d", answer) and _rounding_without_data(text or ""):
        return True
    if not answer or not re.search(r"\d", answer) or not _AMOUNT_ASKED.search(text or ""):
        return False
    if not _YEAR.search(text or "") and not re.search(r"\bwhich years?\b", text or "", re.I):
        # `How many edges does a cube have?`: no numbers, nothing missing
        return False
    return not _ANY_NUMBER.search(_YEAR.sub(" ", text or ""))


# a `how many` question (`How many peaches are in the basket?`)
_HOW_MANY = re.compile(r"\bhow\s+many\b", re.I)
# words that carry no topic (short ones too): what a question shares with any setup
_FUNCTION_WORDS = frozenset({"about", "after", "again", "all", "also", "altogether", "an", "and", "any", "are", "as",
                             "at", "be", "been", "before", "being", "by", "can", "did", "do", "does", "each",
                             "every", "find", "first", "for", "from", "get", "got", "had", "has", "have", "he",
                             "her", "here", "him", "his", "how", "if", "in", "into", "is", "it", "its", "just",
                             "last", "left", "many", "more", "most", "much", "must", "need", "needs", "next", "not",
                             "now", "of", "on", "one", "or", "other", "our", "out", "over", "per", "same", "she",
                             "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these",
                             "they", "this", "those", "time", "times", "to", "total", "two", "up", "use", "was",
                             "we", "were", "what", "when", "where", "which", "while", "will", "with", "would", "you",
                             "your"})  # fmt: skip


# what competition and textbook questions count whatever their setup, and measures (a unit asked, `how many g`)
_GENERIC_COUNTS = frozenset({"ways", "values", "possible", "distinct", "different", "numbers", "integers", "positive",
                             "negative", "real", "ordered", "solutions", "roots", "pairs", "triples", "digits", "terms",
                             "divisors", "factors", "lines", "points", "times", "more", "fewer", "less", "of",
                             "elements", "subsets", "sequences", "arrangements", "outcomes", "combinations", "zeros",
                             "zeroes", "nonnegative", "even", "odd", "prime", "primes", "multiples", "squares",
                             "cubes", "total", "whole", "natural", "consecutive", "other", "such", "three", "two",
                             "four", "five", "non", "integer", "did", "do", "does", "are", "were", "is", "was",
                             "will", "would", "can", "could", "should", "have", "has", "had", "in"})  # fmt: skip
_MEASURES = frozenset({"g", "mg", "kg", "mcg", "ml", "l", "litres", "liters", "litre", "liter", "cm", "mm", "m", "km",
                       "grams", "milligrams", "kilograms", "meters", "metres", "units", "tablets", "capsules", "drops",
                       "seconds", "minutes", "hours", "days", "weeks", "months", "years", "dollars", "cents", "degrees",
                       "inches", "feet", "yards", "miles", "pounds", "ounces", "cups", "gallons", "quarts", "pints",
                       "square", "cubic", "percent"})  # fmt: skip


def question_unrelated_to_setup(text: str) -> str | None:
    """The `how many` question of a word problem that shares no word with the text before it (`In a school there are
    458 more girls than boys. If there are 692 girls How many peaches are in the basket?`): a premise is missing (MiP-style
    variants of SVAMP and GSM8K swap in another problem's question), so the key answers a problem that is not there.
    Words of two letters or more count (a unit, `mL`, too), in singular or plural (`peach`, `peaches`), function words
    not. Returns the
    question's words; None when the question shares a word with the setup, the setup has no number, or the text is
    not English."""
    found = list(_HOW_MANY.finditer(text or ""))
    if not found:
        return None
    before, question = text[: found[-1].start()], text[found[-1].start() :]
    if not re.search(r"\d", before) or not text.isascii():
        return None
    counted = re.match(
        r"how\s+many\s+(?:more\s+|fewer\s+|less\s+)?\$?\\?(?:text\{)?([A-Za-z]+)", question, re.I
    )
    if (
        counted is None
        or counted.group(1).lower() in _GENERIC_COUNTS
        or counted.group(1).lower() in _MEASURES
    ):
        return None  # `how many ways`, `how many possible values`, `how many g`: asked of any setup
    words = {w.lower() for w in re.findall(r"[A-Za-z]{2,}", question)} - _FUNCTION_WORDS
    setup = {w.lower() for w in re.findall(r"[A-Za-z]{2,}", before)}
    stems = {w[:-1] if w.endswith("s") else w for w in setup} | setup
    shared = {
        w
        for w in words
        if w in stems
        or (w.endswith("s") and w[:-1] in stems)
        or w[:-2] in stems
        or (w.endswith("ies") and w[:-3] + "y" in stems)
    }  # `raspberries` for `raspberry`
    return None if shared or not words else " ".join(sorted(words))


# a question about money or sales (`What does it cost ...`, `What is the total profit ...`, `How many ... should be
# sold?`), and a price a statement gives (a currency sign or word)
_MONEY_QUESTION = re.compile(
    r"\b(?:costs?|price[sd]?|profits?|revenues?|income|sold|sells?|earn(?:s|ed|ings)?|pays?|paid|spen[dt]s?)\b",
    re.I,
)
_PRICE_GIVEN = re.compile(
    r"[$€£¥₹₩₫]|\b(?:dollars?|cents?|euros?|pounds?|rupees?|yuan|yen|reais|Rs|pence|paise)\b|\d\s*p\b", re.I
)
_RATE_ASKED = re.compile(r"\b(?:percent\w*|ratio|rate|times|fraction)\b|%", re.I)  # a relation, not an amount
_CURRENCY_KEY = re.compile(
    r"^\s*(?:\\?\$|€|£|¥|₹|R\$|Rs\.?)\s*\d|\d\s*(?:€|dollars?|cents?|euros?)\s*$", re.I
)


def prices_missing(text: str, answer: str | None) -> str | None:
    """A question about money or sales whose statement gives no price: with no number at all (`What is the total profit
    from the entire enterprise?`, a follow-up of a worksheet whose data came earlier) or a money key where the
    statement names no currency (`A Classic package contains 2 strawberries and 4 truffles. What does it cost to
    create one?` keyed `$2.00`: the prices were in earlier items). Returns what is missing, else None."""
    if not answer or not re.search(r"\d", answer) or _PRICE_GIVEN.search(text or ""):
        return None
    asked = sentences(text)
    if not asked or not _MONEY_QUESTION.search(asked[-1]) or _RATE_ASKED.search(asked[-1]):
        return (
            None  # `If the selling price is doubled, the profit triples. Find the profit percent.`: no amount
        )
    if not _ANY_NUMBER.search(text):
        return "a money or sales question with no number in the statement"
    if _CURRENCY_KEY.search(answer):
        return "a money key for a statement that gives no price"
    return None


def sentences(text: str) -> list[str]:
    """The statement's sentences, stripped: split after `.?!。？．！` (not inside `6.50`, nor in a blank `....`)
    and at line breaks."""
    ends = r"(?:(?<=[?!。？．！])|(?<=(?<!\.)\.))(?![\d.])\s*|\n+"
    return [x.strip() for x in re.split(ends, (text or "").strip()) if x.strip()]


def several_asks(text: str) -> str | None:
    """The phrase that asks for several things at once ("find $a$ and $b$", two questions), or None."""
    m = _SEVERAL_ASKS.search(text or "")
    if m:
        return m.group(0)[:60]
    m = _OF_EACH.search(text or "")
    if m and not _SAME_COUNT.search(text or ""):  # `How many of each item did she order?`: one value per item
        return m.group(0)
    sentences_ = sentences(text)
    ask = next((x for x in reversed(sentences_) if _ASKS.search(x) or "?" in x or "？" in x), "")
    m = _SEVERAL_IN_ASK.search(ask)
    # "if each costs $5 and $15 respectively" names given values; only the asked ones count
    if m and not re.search(r"\b(if|given|where|when|since)\b", ask[: m.start()], re.I):
        return m.group(0)
    questions = [q for q in sentences_ if q.rstrip().endswith(("?", "？")) and _ASKS.search(q)]
    orders = [q for q in sentences_ if _ORDER.match(q)]  # `Find the smaller number. Find the larger number.`
    if (len(questions) >= 2 or len(orders) >= 2) and not _RESTATED.search(text or ""):
        return "two questions"
    m = _SEVERAL_NAMED.search(ask)
    if m:
        return m.group(0)[:60]
    m = _TWO_ASKED.search(ask)
    if m and not _TOTAL.search(ask):
        return m.group(0)[:60]
    if len(_ZH_ASKED.findall(text or "")) >= 2:
        return "two questions (多少)"
    return None


# one ask sentence asking for two quantities: `how many pounds of Columbian beans and how many pounds of
# Peruvian beans`, `How many wins and losses`, `How many milliliters of the 25% solution and 50% solution`
# (not when it asks for their total: `How many boys and girls are there in all?`)
_TWO_ASKED = re.compile(
    r"\bhow (?:many|much)\b[^?.]*\band how (?:many|much)\b|"
    r"\bhow many \w+ and \w+\b|\bhow many \w+ of (?:the )?[^?.,]{1,40}? and (?:of )?(?:the )?[^?.,]{1,40}?"
    r"(?= (?:should|must|did|does|do|will|would|are|were|is|was|can|could)\b)",
    re.I,
)
# an imperative ask opening a sentence, and an ask for several things named by a count (`Find the two numbers.`)
_ORDER = re.compile(r"\s*(?:find|determine|compute|calculate|evaluate)\b", re.I)
_SEVERAL_NAMED = re.compile(
    r"\b(?:find|determine|compute|calculate|what are|give)\s+(?:the\s+|both\s+|all\s+)?(?:two|three|four|both|"
    r"2|3|4)\s+(?:\w+\s+)?(?:numbers|integers|values|angles|sides|roots|solutions|amounts|prices|ages|"
    r"dimensions|lengths|rates|speeds)\b",
    re.I,
)
_TOTAL = re.compile(r"\b(?:in all|in total|total|altogether|combined|together|sum|both)\b", re.I)
# Chinese questions: each clause that ends in ？ (or the text) and asks 多少 / 几
_ZH_ASKED = re.compile(r"[^？?。，,]*(?:多少|几[个只本元天次])[^？?。，,]*(?:[？?]|$)")


# a question that asks for a form of a number the statement gives (its prime factorisation): the value is no answer
_FORM_ASKED = re.compile(
    r"\b(?:find|write|give|determine|state|what is|what's)\b[^.?\n]{0,20}\bprime factori[sz]ation\b|\b(?:write|express)\b"
    r"[^.?\n]{0,40}\bas (?:a )?products? of (?:primes|prime (?:factors|powers|numbers))\b|(?:把|将)[^，。？]{0,15}分解质因数",
    re.I,
)
# a key that reads a clock: `7 PM`, `11:30 a.m.`, `16:30 Uhr`
_CLOCK_KEY = re.compile(
    r"\b\d{1,2}(?::\d{2}){0,2}\s*(?:[ap]\.?\s?m\b\.?|Uhr\b)", re.I
)  # not `11:13`, a ratio


# the class each reason belongs to (the rules report counts per class)
VERIFIABILITY = {
    "proof": "proof",
    "yes_no": "yes/no",
    "choice_dependent": "multiple choice",
    "mc_unresolved": "multiple choice",
    "multiple_choice": "multiple choice",
    "multi_part": "multi-part",
    "several_blanks": "multi-part",
    "one_of_many": "several values",
    "construction": "proof",
    "approximate": "approximate / estimation",
    "needs_diagram": "refers to a figure",
    "diagram": "refers to a figure",
    "refers_to_other_problem": "refers to another problem",
    "needs_data": "refers to data not in the statement",
    "placeholder": "refers to data not in the statement",
    "lost_expression": "malformed statement",
    "unstated_encoding": "refers to data not in the statement",
    "several_asks": "several asks",
    "malformed": "malformed statement",
    "no_question": "malformed statement",
    "other_base": "a numeral in another base",
    "code": "a code, not a number",
    "form_asked": "a form, not a number",
    "clock_time": "a clock time, not a number",
    "no_answer": "no answer",
}


# a right triangle's third side asked when the statement names neither the hypotenuse nor the legs (`sides 3, 4 and x`):
# x is 5 or sqrt(7)
_RIGHT_TRIANGLE = re.compile(
    r"\bright(?:[- ]angled)? triangle|tam giác vuông|triángulo rectángulo|triângulo retângulo|rechtwinklig\w* Dreieck"
    r"|triangle rectangle|segitiga siku|прямоугольн\w* треугольник|直角三角形",
    re.I,
)
_AND = r"(?:and|y|e|et|und|và|и|dan|和)"
_SIDES_AND_UNKNOWN = re.compile(
    r"\d+(?:[.,]\d+)?\s*(?:,\s*" + _AND + r"?|" + _AND + r")\s*\$?[a-z]\$?(?![\w(])", re.I
)
_SIDE_NAMED = re.compile(
    r"hypot[eé]nus|\blegs?\b|cateto|kathete|cạnh huyền|góc vuông|catet|катет|гипотенуз|斜边|直角边|sisi miring|longest side",
    re.I,
)


def hypotenuse_unnamed(text: str) -> bool:
    """A right triangle with two sides given and the third unknown, with no word for which one is the hypotenuse."""
    return bool(
        _RIGHT_TRIANGLE.search(text) and _SIDES_AND_UNKNOWN.search(text) and not _SIDE_NAMED.search(text)
    )


# an unknown given only through its square (`If $n^2 = 576$, what is $(n+1)^2$?`, `x^2 + y^2 + z^2 = 116` with x:y:z
# fixed): -n satisfies the statement as well as n, so the value asked may be two, unless the statement names a sign
_SQUARES_GIVEN = re.compile(
    r"(?<![A-Za-z\\\d_{])[a-z]\s*\^\s*\{?\s*2\s*\}?(?:\s*\+\s*[a-z]\s*\^\s*\{?\s*2\s*\}?)*\s*=\s*\d+"
    r"(?![\d.]|\s*[a-zA-Z(\\])"
)
# another equation with a number for its value (`a + b + c = 10`): it may fix the signs the squares leave open
_NUMBER_EQUATION = re.compile(r"=\s*-?\d+(?![\d.]|\s*[a-zA-Z(\\:])")
_SQUARED = re.compile(r"([a-z])\s*\^\s*\{?\s*2")
# a curve, a count of solutions or a sign named: the square is no lost sign there
_SIGN_SETTLED = re.compile(
    r"circle|ellipse|parabola|hyperbola|curve|region|tangent|graph|\bline|plane|sphere|\broots?\b|ordered|"
    r"number\s+of|how\s+many|positive|natural|non-?negative|\\geq?\b|\\ge\b|>|digits?\b|length|side|radius|"
    r"\bages?\b|whole|\\mathbb\s*\{?\s*N|\bsolve\b|all\s+(?:real\s+)?(?:values|solutions)|[圆线根正]",
    re.I,
)
_EVEN_POWER = re.compile(r"[a-z]\s*\^\s*\{?\s*\d*[02468]\s*\}?")
_ASKED_EXPRESSION = re.compile(
    r"\b(?:what\s+is|find|compute|evaluate|determine|calculate)\s+(?:the\s+value\s+of\s+)?\$([^$]+)\$", re.I
)


def sign_unfixed(text: str) -> bool:
    """The statement fixes its unknowns only through a sum of their squares and asks for an expression in them,
    naming no sign: `If $n^2 = 576$, what is $(n+1)^2$?` is 625 or 529."""
    given = _SQUARES_GIVEN.search(text)
    if given is None or _SIGN_SETTLED.search(text) or len(_NUMBER_EQUATION.findall(text)) > 1:
        return False
    unknowns = set(_SQUARED.findall(given.group(0)))
    asked = _ASKED_EXPRESSION.findall(text)
    if not asked:
        return False
    # the unknowns the asked expression holds outside even powers (`x^2 + 1` is the same for -x)
    odd = _EVEN_POWER.sub(" ", re.sub(r"\\[A-Za-z]+", " ", asked[-1]))
    return bool(unknowns & set(odd))


def coded_answer(text: str, answer: str) -> bool:
    """The key is a code for yes/no or for a label (a 1-in-2 or 1-in-n guess), not a computed number.

    Either the statement says how the choice is coded ("Answer 1 for yes and 0 for no", "Answer
    with 1 or 2 or 3"), or its one question is a yes/no question ("Does the series converge?",
    nothing asked after it) and the key is 0 or 1.
    """
    if _CODED_ANSWER.search(text or ""):
        return True
    key = re.sub(r"[\s$]|\\boxed\{|\}", "", answer or "")
    if not re.fullmatch(r"[01](\.0+)?", key):
        return False
    sentences = [x for x in re.split(r"(?<=[.?!])\s+", (text or "").strip()) if x.strip()]
    questions = [i for i, x in enumerate(sentences) if x.rstrip().endswith("?")]
    if len(questions) != 1 or not _AUX_QUESTION.match(sentences[questions[0]]):
        return False
    after = " ".join(sentences[questions[0] + 1 :])
    return not _ASKS.search(after)


def rounding_asked(text: str) -> str | None:
    """The rounding phrase of a statement ("to the nearest tenth of a degree"), or None."""
    m = ROUNDING.search(text or "")
    return m.group(0) if m else None


def complex_context(text: str) -> bool:
    """The statement works with complex numbers (a real-looking key may have lost its i)."""
    return bool(_COMPLEX.search(text or ""))


_LETTER = re.compile(
    r"^\s*\$?\s*(?:\\textbf\{|\\text\{|\\mathrm\{)?\s*\(?\s*([A-E])\s*\)?\s*\}?\s*\$?\s*\.?\s*$"
)
_THOUSANDS = re.compile(r"^-?\d{1,3}(,\d{3})+$")


# layout a statement kept from its LaTeX source at its end: `\end{problem}`, `\noindent`, `\medskip`
_LAYOUT_END = re.compile(
    r"(?:\s|\\end\{(?:problem|question|exercise|enumerate)\}|\\(?:noindent|medskip|bigskip|smallskip|newline|par)\b)+$"
)


# an exported quiz page's markup around the words (`<p> Solve for <em>x</em> ...</p>`, `<br/>`): no part of the problem;
# only these tags, so that `a<b and c>d` stays as written
_HTML_TAG = re.compile(
    r"</?(?:p|em|strong|b|i|u|br|span|div|li|ul|ol|h[1-6]|code|small|big|center|font)(?:\s+[\w-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*\s*/?>",
    re.I,
)
_HTML_SCRIPT = re.compile(r"<(sup|sub)>([^<>]{1,20})</\1>", re.I)  # `x<sup>2</sup>`: x^{2}


def without_html(text: str) -> str:
    """A quiz page's HTML tags around the words removed (`<sup>2</sup>` kept as `^{2}`, `<br/>` a line break, `&rarr;`
    the arrow it names)."""
    if "<" not in text or ">" not in text:
        return text
    if "&" in text:
        text = html.unescape(text)
    text = _HTML_SCRIPT.sub(
        lambda m: ("^" if m.group(1).lower() == "sup" else "_") + "{" + m.group(2) + "}", text
    )
    text = _HTML_TAG.sub(lambda m: "\n" if m.group(0).lower().startswith("<br") else "", text)
    return re.sub(r"[ \t]{2,}", " ", text)


def clean_text(text: str) -> str:
    """Unicode NFC, no trailing spaces or LaTeX layout at the end, at most one blank line in a row, stripped; a quiz
    page's HTML tags around the words removed (`without_html`)."""
    text = without_html(unicodedata.normalize("NFC", text).replace("\r\n", "\n"))
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = _LAYOUT_END.sub("", text)  # `... the sum?\n\end{problem}\n\noindent` (MathOdyssey)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# a last line of unlabelled options, as a quiz bank's separate field is joined to its stem: `Options: 5.9 / 6.0 / 5.8`
# an `Options:` header on its own line, or capitalised after the question on the same line (`... forest? Options: 845 /
# 833`; never the prose `three options:`)
_OPTIONS_HEADER = r"(?:\n[ \t]*(?:Options|Choices)|[ \t]+(?-i:Options|Choices))[ \t]*:"
_OPTION_LINE_START = re.compile(_OPTIONS_HEADER, re.I)
_OPTION_LINE = re.compile(_OPTIONS_HEADER + r"[ \t]*(?P<list>[^\n]+?)[ \t]*$", re.I)


def option_items(listed: str) -> list[str] | None:
    """The options of one `Options:` line, in order: `a / b / c`, `a; b; c`, `a | b | c`, a Python list
    (`['A)21', 'B)21.5']`, AQuA's), inline letters (`A. 21 B. 22 C. 23`), or `a, b, c`; None when none fits."""
    listed = listed.strip()
    quoted = re.fullmatch(r"\[\s*((?:'[^']*'|\"[^\"]*\")(?:\s*,\s*(?:'[^']*'|\"[^\"]*\"))+)\s*\]", listed)
    if quoted:
        items = [x[1:-1] for x in re.findall(r"'[^']*'|\"[^\"]*\"", quoted.group(1))]
    elif re.match(r"\(?A[.)]\s*\S", listed) and re.search(r"\s\(?B[.)]\s*\S", listed):
        items = re.split(r"\s+(?=\(?[B-F][.)]\s*\S)", listed)
    else:
        items = next((listed.split(sep) for sep in (" / ", "; ", " | ", ", ") if sep in listed), [])
    # `A) 5 / B) 6`: the separator stays behind; `<p>a) \(12\)</p>`: an exported page's tags are no part of an option
    items = [re.sub(r"<[^<>]{1,40}>", "", x).strip().rstrip("/;|,").strip() for x in items]
    if not 2 <= len(items) <= 6 or not all(items):
        return None
    return without_own_letters(items)


def without_own_letters(items: list[str]) -> list[str]:
    """Options without the letter an item carries in its own place (`A) -\\frac{29}{5}`, `B)21.5`, `b) 14`, `(C) 22`)."""
    return [
        re.sub(r"^\(?[" + "ABCDEFGHIJ"[i] + "abcdefghij"[i] + r"]\s*[).:]\s*", "", x)
        for i, x in enumerate(items)
    ]


# an equality of two plain numbers opening the statement or a sentence: inside a sentence a number may end a formula
# whose operators the text spells (`(3)5^2-4(5-a)^2 \div 3=63`, `x _ 1 = 0`)
_BARE_EQUALITY = re.compile(r"(?:^|(?<=[.!?])\s+)(\d{1,12})\s*=\s*(\d{1,15})(?![\w.,]|\s*[-+*/×÷^]|\s*\()")


def false_stated_equality(text: str) -> str | None:
    """An equality of two plain numbers that opens the statement or a sentence as a fact and is false: `215 = 32768
    and the sum of its digits is 26` is 2^15 with its superscript lost, so the rest of the statement (`the number
    21000`) is garbled too. Not a coded puzzle (`If 3 = 9 and 4 = 16, then 5 = ?`) or a number sentence with a blank."""
    if re.search(r"\bif\b[^.?!]{0,30}=", text, re.I) or re.search(r"_{2,}", text):
        return None
    false = (m for m in _BARE_EQUALITY.finditer(text) if int(m.group(1)) != int(m.group(2)))
    return next((m.group(0).strip() for m in false), None)


def find_choices(text: str) -> tuple[str, dict[str, str]] | None:
    """(stem without the choices, {letter: value}) when `text` ends with choices (A) .. (D/E), or with a
    line `Options: a / b / c / d` (lettered A, B, ... in their order; `option_items` reads its forms)."""
    found = options(text)
    if found is None:
        line = _OPTION_LINE.search(text)
        items = option_items(line.group("list")) if line else None
        if items is None:
            return None
        return clean_text(text[: line.start()]), {"ABCDEF"[i]: clean_choice(x) for i, x in enumerate(items)}
    start, choices = found
    # the stem: everything before the choices, without a dangling "$" or `Options:` that opened the choice list
    stem = re.sub(r"(\$\$|\$|\\\[|\\\(|" + _OPTIONS_HEADER + r")\s*$", "", text[:start].rstrip(), flags=re.I)
    return clean_text(stem.rstrip()), choices


# `60N`, `44 m`, `2.5 hours`, `6%`: an option that is a plain number and one word or unit sign after it
_NUMBER_AND_UNIT = re.compile(
    r"^\$?\s*-?\d+(?:[.,]\d+)?(?:\s+\d+/\d+)?\s*([^\W\d_][^\d\s$\\=()]{0,11}|\\?%|°|\^\\circ)\s*\$?$"
)
_NOT_A_UNIT = {"π", "pi", "i", "e"}


def choice_unit(choices: dict[str, str]) -> str | None:
    """The unit every choice writes after a plain number (`60N / 65N / 55N`), or None. Only then is it a unit:
    a letter that is a variable shows in some choice as more than a number's suffix (`-3 m / \\frac{m}{3}`)."""
    # an option with no number (`None of these`, `Data inadequate`) says nothing about the unit
    found = [_NUMBER_AND_UNIT.match(c.strip()) for c in choices.values() if re.search(r"\d", c)]
    units = {m.group(1).strip() for m in found if m}
    if len(found) < 3 or not all(found) or len(units) != 1:
        return None
    (unit,) = units
    return None if unit.lower() in _NOT_A_UNIT else unit


# a letter and the option's index (0- or 1-based) that quiz exports write beside it: `B (índice 1)`, `C (index 3)`
_LETTER_WITH_INDEX = re.compile(
    r"\s*\(?([A-Ea-e])\)?\s*\(\s*(?:index|idx|índice|indice|índex|индекс)\s*:?\s*(\d)\s*\)\s*", re.I
)


def _named_letter(answer: str) -> str | None:
    """The letter an answer names by itself: `C`, `(C)`, `c`, `\\textbf{(C)}~8`, `(C) \\sqrt 5`, `B) 14 zł`."""
    m = _LETTER.match(answer) or re.fullmatch(r"\s*\(?([a-e])\)?\.?\s*", answer)
    if m:  # `C`, `(C)`; a lower-case key (`c`) names the same option
        return m.group(1).upper()
    m = _LETTER_WITH_INDEX.fullmatch(answer)
    if m:  # `B (índice 1)`: a quiz bank's export names the option's position too; it must be the letter's
        position = ord(m.group(1).upper()) - ord("A")
        return m.group(1).upper() if int(m.group(2)) in (position, position + 1) else None
    m = re.search(r"\\(?:textbf|text|mathrm)\s*\{\s*\(([A-E])\)", answer) or re.match(
        r"\s*\(([A-Ea-e])\)[\s,.:]|\s*([A-Ea-e])\)[\s,.:]*\S", answer
    )  # `(C), 1910` and `b) 4` too: a letter, then the choice written out
    return (m.group(1) or m.group(2)).upper() if m else None


def _content_after_letter(answer: str) -> str | None:
    """What a key writes after the letter it names (`1910` in `(C), 1910`, `14 zł` in `B) 14 zł`), or None."""
    m = re.match(r"\s*\(?[A-Ea-e]\)[\s,.:]*(\S.*)$", answer)
    return m.group(1).strip() if m else None


def _contradicts(content: str, choice: str) -> bool:
    """A key's written-out choice whose numbers are not the named choice's (`(D), 32` naming `(D) 31`)."""
    numbers = re.findall(r"\d+(?:[.,]\d+)?", content)
    return bool(numbers) and numbers != re.findall(r"\d+(?:[.,]\d+)?", choice)


_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"
_CIRCLED_LABEL = re.compile(r"^\s*[" + _CIRCLED + r"]\s*")


def numbered_choices(text: str) -> tuple[str, dict[str, str]] | None:
    """(stem, {letter: circled label + option}) when the statement ends with options numbered (1)-(5) or ①-⑤
    (`verifiers.forms.numbered_options`): a key `1` names option 1, never the value 1."""
    found = numbered_options(text)
    if found is None:
        return None
    run, contents = found
    return clean_text(text[: run[0].start()]), {
        "ABCDE"[i]: _CIRCLED[i] + " " + c for i, c in enumerate(contents)
    }


def _circled_choice(answer: str, choices: dict[str, str]) -> str | None:
    """Choices labelled `① ... / ② ...` (Korean, Japanese, Chinese banks) keyed by a number: the key `4` names ④,
    never a choice that holds the number 4. The letter of that choice, or None when the labels are not circled."""
    labels = [c.strip()[:1] for c in choices.values()]
    if not labels or any(x not in _CIRCLED for x in labels):
        return None
    key = answer.strip()
    index = (
        _CIRCLED.index(key) + 1 if len(key) == 1 and key in _CIRCLED else int(key) if key.isdigit() else None
    )
    if index is None or not 1 <= index <= len(_CIRCLED):
        return None
    hits = [k for k, c in choices.items() if c.strip()[:1] == _CIRCLED[index - 1]]
    return hits[0] if len(hits) == 1 else None


# a key's own label, in the languages of the sources (`Answer: 12`, `Đáp án: 100`, `Resposta: (C) 4`, `답 : 5`,
# classical Chinese `答曰` "the answer says"); `#### 27`: GSM8K's answer marker alone, without its solution
KEY_LABEL = re.compile(
    r"^(?:(?:Đáp án|Đáp số|(?:Final\s+)?Answer|Ans|Odpowiedź|Respuesta|Resposta|Réponse|Antwort|Lösung|Jawaban|Ответ|Cevap|答案|答え|答|"
    r"정답|답)\s*[:：]|[答荅]曰\s*[:：]?|####(?=\s*[-$\d]))\s*",
    re.I,
)
# a markdown checklist's ticked item (`* [x] 3`): the option chosen
_TICKED = re.compile(r"^\s*(?:[-*+]\s+)?\[[xX]\]\s*")


# an option that states a relation between two expressions, not a value (`x = 3` names one and stays a value)
_STATEMENT_OPTION = re.compile(
    r"(?<![<>!=])=(?!=)(?<!^[A-Za-z] =)(?<!^[A-Za-z]=)|[<>≤≥≠]|\\(?:le|ge|leq|geq|neq|lt|gt)\b"
)


# an option that is an unevaluated sum of plain numbers (`200 + 450 + 200` for "which expression is the closest
# estimate"): the question asks for that form, not its value (`2 + \sqrt{3}` is a value and stays one)
_ARITHMETIC_OPTION = re.compile(r"\s*\$?\s*\d+(?:\.\d+)?(?:\s*[-+×*÷]\s*\d+(?:\.\d+)?)+\s*\$?\s*")


# a key that names its option first and explains after (`The correct answer is **C**. The Constant Rule states ...`)
_ANSWER_FIRST = re.compile(
    r"^\s*(?:the\s+)?(?:correct\s+|right\s+)?(?:answer|option|choice)\s+is\s*:?\s*\(?([A-Ea-e])\)?(?=[\s.,:;]|$)",
    re.I,
)


def _key_text(answer: str) -> str:
    """A key without its emphasis (`*Resposta: (C) 4*`), its label and a checklist tick; an answer-first key's letter."""
    text = answer.strip().replace("**", "")  # `**Answer:** B`
    first = _ANSWER_FIRST.match(text)
    if first:
        return first.group(1).upper()
    if len(text) > 2 and text[0] == text[-1] and text[0] in "*_" and text[1] not in "*_ ":
        text = text[1:-1].strip()
    return KEY_LABEL.sub("", _TICKED.sub("", text))


_UNLETTERED_OPTIONS = re.compile(
    r"(?m)(?:^\s*|[ \t]+(?-i:(?=Options)))Options\s*:\s*(?![A-Ea-e]\s*[:.)]|\d\s*[:.)]|[①-⑳])"
)


def _position_or_value(answer: str, text: str, choices: dict[str, str], letter: str) -> bool:
    """A bare whole-number key that names an option by its value, among options the source did not letter: when that
    number is also a position (0- or 1-based) of another option, the key could be either (quiz exports key by index)."""
    key = answer.strip()
    if not re.fullmatch(r"\d", key) or not _UNLETTERED_OPTIONS.search(text):
        return False
    letters = list(choices)
    positions = {letters[i] for i in (int(key), int(key) - 1) if 0 <= i < len(letters)}
    return bool(positions - {letter})


def _keyed_letter(answer: str | None, choices: dict[str, str]) -> str | None:
    """The letter an answer names, or of the one choice equal to it (`24` names `Ngày 24` when that
    choice holds no other number)."""
    if not answer:
        return None
    answer = _key_text(answer)
    letter = _named_letter(answer)
    if letter:
        content = _content_after_letter(answer)
        # a letter and a value that is not that choice's: the key contradicts itself, nothing is keyed
        if content and letter in choices and _contradicts(content, choices[letter]):
            return None
        return letter
    value = clean_choice(undoubled_backslashes(answer))
    hits = [k for k, v in choices.items() if v == value]
    if not hits and re.fullmatch(r"-?\d+(?:\.\d+)?", value):
        # the choice's one number, not a coefficient (`Ngày 24` holds 24; `3x¹²` does not hold 3)
        hits = [k for k, v in choices.items() if re.findall(r"-?\d+(?:\.\d+)?", v) == [value]
                and not re.search(rf"(?<![\d.]){re.escape(value)}\s*[A-Za-z^¹²³⁴⁵⁶⁷⁸⁹⁰(\\]", v)]  # fmt: skip
    return hits[0] if len(hits) == 1 else None


def _parts(text: str) -> list[str]:
    """Texts after each (a)/(b)/(i)/(ii) label, when there are at least two labels."""
    marks = list(_PART_LABEL.finditer(text))
    if len(marks) < 2:
        return []
    return [
        text[m.end() : (marks[i + 1].start() if i + 1 < len(marks) else len(text))]
        for i, m in enumerate(marks)
    ]


def has_top_level_separator(s: str, separators: str = ",") -> bool:
    """A separator outside every bracket: `1, 2` has one, `(1, 2)` has none."""
    depth = 0
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in separators and depth == 0:
            return True
    return False


def _several_values(answer: str | None) -> bool:
    """`1, 3, 5`, `$69$,$84$`, `2 or 3`: more than one value at the top level."""
    if not answer:
        return False
    s = answer.replace("$", "").strip()
    if _THOUSANDS.match(s):
        return False
    if has_top_level_separator(s, ",;"):
        return True
    return bool(re.search(r"\s(or|and)\s", s))


def _load_json(value: Any) -> dict:
    if value is None or value == "":
        return {}
    if isinstance(value, dict):
        return dict(value)
    try:
        out = json.loads(value)
    except (TypeError, json.JSONDecodeError):
        return {"_unparsed": value}
    return out if isinstance(out, dict) else {"_value": out}


# the statement's last sentence gives the answer away: `Show that it is \\text{(E)}.`, `Show that the answer is 5.`
_STATED_ANSWER = re.compile(r"\s*Show that (?:it|the answer) is\s+[^\n]{1,160}?\.?\s*$")


def classify(record: dict, *, reject_diagrams: bool = False, mc_to_open: bool = True) -> dict:
    """A copy of `record` with `checks.classify` filled in and, if unusable, a reject status.

    Multiple choice with a keyed letter: `problem` becomes the stem without choices and
    `original_answer` the keyed choice's value (the letter and all choices stay in
    `checks.classify`). A record already rejected keeps its earlier reason.
    `reject_diagrams=True` also rejects problems whose diagram is given as `[asy]` code.
    """
    rec = dict(record)
    text = clean_text(rec.get("original_problem") or "")
    undoubled = undoubled_backslashes(text)
    if undoubled != text:  # LaTeX escaped twice by the source's dump: the statement as it was meant
        text = rec["problem"] = undoubled
    checks = _load_json(rec.get("checks"))
    acquired = checks.get("acquire", {}) if isinstance(checks.get("acquire"), dict) else {}
    imported = checks.get("import", {}) if isinstance(checks.get("import"), dict) else {}
    answer = rec.get("original_answer")
    reasons: list[str] = []
    info: dict[str, Any] = {}

    # a statement that ends by stating its own answer (miniF2F's informal statements: `... Show that it is 75.`)
    stated = _STATED_ANSWER.search(text)
    key = re.sub(r"[\s$]", "", str(answer or ""))
    if stated and stated.start() > 0 and key and key in re.sub(r"[\s$]", "", stated.group(0)):
        text = text[: stated.start()].rstrip()
        rec["problem"] = text
        info["stated_answer_removed"] = stated.group(0).strip()

    # multiple choice
    mc = find_choices(text) or numbered_choices(text)
    info["multiple_choice"] = mc is not None
    # an options line not read as choices: what the key names is unknown
    if mc is None and _OPTION_LINE_START.search(text):
        reasons.append("mc_unresolved")
    if mc:
        stem, choices = mc
        info["choices"] = choices
        circled = _circled_choice(str(answer or ""), choices)
        letter = circled if circled is not None else _keyed_letter(answer, choices)
        if (
            circled is None
            and letter is not None
            and _position_or_value(str(answer or ""), text, choices, letter)
        ):
            letter = (
                None  # `Options: 1 / 2 / 10 / 100` keyed `1`: the value 1, or the option at position 1 (2)?
            )
        info["choice"] = letter
        if _CHOICE_DEPENDENT.search(stem):
            reasons.append("choice_dependent")
        elif (
            letter is None
            or letter not in choices
            or _STATEMENT_OPTION.search(choices[letter])
            or _ARITHMETIC_OPTION.fullmatch(_CIRCLED_LABEL.sub("", choices[letter]))
        ):
            # (`(+3) + (–7) + (–1) = (–5)` for "which operation does the model show?": the option is a statement)
            reasons.append("mc_unresolved")
        elif not mc_to_open:
            reasons.append("multiple_choice")
        else:
            rec["problem"] = stem
            # a key that names its letter becomes that choice's value; a key written as a value stays
            named = circled is not None or _named_letter(_key_text(str(answer)))
            ticked = _TICKED.match(str(answer)) is not None  # `* [x] 3`: the ticked option's own text
            rec["original_answer"] = (
                _CIRCLED_LABEL.sub("", choices[letter]).strip()
                if named
                else _key_text(answer)
                if ticked
                else answer
            )
            info["choice_value"] = choices[letter]
            info["answer_as_acquired"] = answer
            unit = choice_unit(choices)
            if unit:
                info["choice_unit"] = unit
        text = stem

    # proofs: a proof verb, and nothing asked for or no answer to check against
    info["proof"] = bool(_PROOF.search(text)) and (not _ASKS.search(text) or not answer)
    if info["proof"]:
        reasons.append("proof")

    if _MALFORMED.search(text):
        reasons.append("malformed")
    if refers_to_other_problem(text):
        reasons.append("refers_to_other_problem")
    if _PLACEHOLDER.search(text):
        reasons.append("placeholder")
    if _LOST_EXPRESSION.search(text) or _ASK_LOST.search(text) or false_stated_equality(text):
        reasons.append("lost_expression")
    if answer and unstated_encoding(text, str(rec.get("original_answer") or "")):
        reasons.append("unstated_encoding")
    key = str(rec.get("original_answer") or "")
    if answer and (_YES_NO.match(key) or coded_answer(text, key)):
        reasons.append("yes_no")
    # estimation asked for, unless the statement also fixes a rounding (then the key is exact under it)
    info["rounding"] = rounding_asked(text)
    if _ESTIMATE.search(text) and not info["rounding"]:
        reasons.append("approximate")
    if (
        _ONE_OF_MANY.search(text)
        or hypotenuse_unnamed(text)
        or (_BY_ABSOLUTE_VALUE.search(text) and not _SIGN_NAMED.search(text))
        or sign_unfixed(text)
    ):
        reasons.append("one_of_many")
    if _MARK_ON_LINE.search(text):
        reasons.append("construction")  # a mark on the number line is drawn, not computed
    if _FORM_ASKED.search(text):
        reasons.append(
            "form_asked"
        )  # `Find the prime factorization of 120`: the product is the answer, not 120
    if answer and _CLOCK_KEY.search(key):
        reasons.append("clock_time")  # `7 PM`: a reading of the clock, whose digits are no quantity
    if _NAMED_BASE_ASKED.search(text) or any(
        (m.group(1) or m.group(2)).lower() not in ("10", "ten") for m in _OTHER_BASE_ASKED.finditer(text)
    ):
        reasons.append("other_base")  # the key is a numeral in that base
    if _LETTER_CODE.search(text):
        reasons.append("code")  # the key is a code string (`24153`), whose digits are no quantity
    if _HEADING_ONLY.match(text) and not _HEADING_ASKS.search(text):
        reasons.append("no_question")  # `### Вариант 1`: a label, not a problem
    elif mc and not re.search(r"[^\W\d_]{2,}|\d", _EMPTY_STEM_MARKUP.sub(" ", text)):
        reasons.append(
            "no_question"
        )  # `$A: $ $B: $ ... [Suggested time: x minutes]`: an empty template, options only
    if _CONSTRUCTION.search(text) and not _ASKS_NUMBER.search(text):
        reasons.append("construction")
    if (outside_data(text) and not _SHOWN_IN_TEXT.search(text)) or no_data(text, answer):
        reasons.append("needs_data")
    if not mc and len(_BLANK.findall(text)) >= 2:
        reasons.append("several_blanks")

    # multi-part: two or more labelled parts that each ask something, or a reference to another part
    parts = _parts(text)
    asking = [p for p in parts if _ASKS.search(p) or _PROOF.search(p) or "?" in p]
    info["multi_part"] = len(asking) >= 2 or bool(_PART_REF.search(text) or _PART_REF_LOOSE.search(text))
    if info["multi_part"]:
        reasons.append("multi_part")
    # several asks and one key: the key answers one of them (a list key is the LLM's to rewrite)
    info["several_asks"] = several_asks(text)
    if info["several_asks"] and not _several_values(rec.get("original_answer")):
        reasons.append("several_asks")

    # diagrams
    if "[asy]" in text or acquired.get("diagram") == "asy":
        info["diagram"] = "asy"
        if reject_diagrams:
            reasons.append("diagram")
    elif acquired.get("diagram") == "image" or imported.get("image_column") or _IMAGE.search(text):
        info["diagram"] = "image"
        if imported.get("image_column"):
            info["image_column"] = imported["image_column"]
        reasons.append("needs_diagram")
    elif (
        _FIGURE.search(text)
        or _FIGURE_OTHER_LANGUAGES.search(text)
        or (_PICTURE.search(text) and not _SHOWN_IN_TEXT.search(text))
        or (
            (_SHAPE_MEASURE.search(text) or _THIS_FUNCTION.search(text))
            and not _ANY_NUMBER.search(text)
            and not re.search(r"[$=\\^]", text)
            and len(text)
            <= 100  # a one-line ask (a long olympiad statement names its shape by its conditions)
            and not re.search(r"\bunit\b", text, re.I)  # `the unit square`: its side is given by its name
        )
        or _SHADED.search(text)
        or ((_SHOWN.search(text) or _SHOWN_LOOSE.search(text)) and not _SHOWN_IN_TEXT.search(text))
    ):
        info["diagram"] = "referenced"
        reasons.append("needs_diagram")
    else:
        info["diagram"] = None

    # several answers: asked for ("find all ...") or given (a list, "2 or 3")
    extra = imported.get("extra", {}) if isinstance(imported.get("extra"), dict) else {}
    info["several_answers"] = bool(
        len(imported.get("answers") or []) > 1
        or extra.get("is_multiple_answer") is True
        or _several_values(rec.get("original_answer"))
    )
    info["asks_for_all"] = bool(_SEVERAL.search(text))
    info["science"] = science_signals(text, extra)

    if not rec.get("original_answer"):
        reasons.append("no_answer")

    info["reasons"] = reasons
    info["verifiability"] = VERIFIABILITY.get(reasons[0], reasons[0]) if reasons else "open question"
    checks["classify"] = info
    rec["checks"] = json.dumps(checks, sort_keys=True, ensure_ascii=False, default=str)
    status = rec.get("status") or "kept"
    if status == "kept" and reasons:
        rec["status"] = f"rejected:{reasons[0]}"
    return rec
