import edu.stanford.nlp.ling.CoreAnnotations;
import edu.stanford.nlp.ling.CoreLabel;
import edu.stanford.nlp.pipeline.Annotation;
import edu.stanford.nlp.pipeline.MorphaAnnotator;
import edu.stanford.nlp.util.ArrayCoreMap;
import edu.stanford.nlp.util.CoreMap;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

/** Lemmas as CoreNLP 3.6.0's lemma annotator gives them inside SPICE 1.0's pipeline.
 *
 *  Reads lines {@code word TAB tag} (UTF-8; backslash escapes \\ \t \n \r inside fields) and writes one
 *  line per input: the lemma, escaped the same way ({@code \N} when there is none). Each token is lemmatised by MorphaAnnotator itself,
 *  on a one-sentence document whose tokens carry the given text and part-of-speech tag, so the
 *  annotator's own dispatch (phrasal verbs, empty tags) is what runs. The time spent inside the
 *  annotator is written to standard error as {@code annotate-ns N}. */
public class MorphaOracle {
  static String unescape(String s) {
    if (s.indexOf('\\') < 0) return s;
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        char d = s.charAt(++i);
        b.append(d == 't' ? '\t' : d == 'n' ? '\n' : d == 'r' ? '\r' : d);
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\') b.append("\\\\");
      else if (c == '\t') b.append("\\t");
      else if (c == '\n') b.append("\\n");
      else if (c == '\r') b.append("\\r");
      else b.append(c);
    }
    return b.toString();
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
    Writer out = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), 1 << 16);
    MorphaAnnotator annotator = new MorphaAnnotator(false);
    long spent = 0;
    List<CoreLabel> tokens = new ArrayList<>();
    String line;
    while (true) {
      line = in.readLine();
      if (line != null) {
        int tab = line.indexOf('\t');
        if (tab < 0) throw new IllegalArgumentException("expected word TAB tag: " + line);
        CoreLabel token = new CoreLabel();
        token.set(CoreAnnotations.TextAnnotation.class, unescape(line.substring(0, tab)));
        token.set(CoreAnnotations.PartOfSpeechAnnotation.class, unescape(line.substring(tab + 1)));
        tokens.add(token);
      }
      if (tokens.size() == 10000 || (line == null && !tokens.isEmpty())) {
        CoreMap sentence = new ArrayCoreMap();
        sentence.set(CoreAnnotations.TokensAnnotation.class, tokens);
        Annotation document = new Annotation("");
        document.set(CoreAnnotations.SentencesAnnotation.class, Collections.singletonList(sentence));
        long start = System.nanoTime();
        annotator.annotate(document);
        spent += System.nanoTime() - start;
        for (CoreLabel token : tokens) {
          String lemma = token.get(CoreAnnotations.LemmaAnnotation.class);
          out.write(lemma == null ? "\\N" : escape(lemma));
          out.write('\n');
        }
        tokens = new ArrayList<>();
      }
      if (line == null) break;
    }
    out.flush();
    System.err.println("annotate-ns " + spent);
  }
}
