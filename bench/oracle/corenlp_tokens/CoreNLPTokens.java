import edu.stanford.nlp.ling.CoreAnnotations;
import edu.stanford.nlp.ling.CoreLabel;
import edu.stanford.nlp.pipeline.Annotation;
import edu.stanford.nlp.pipeline.StanfordCoreNLP;
import edu.stanford.nlp.util.CoreMap;
import org.json.simple.JSONArray;
import org.json.simple.JSONValue;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

/** Reads captions, one JSON string per line (UTF-8), and writes one JSON line per caption: the token words
 *  of each sentence, from CoreNLP 3.6.0's tokenize and ssplit annotators with the properties SPICE's pipeline
 *  uses (so line breaks and any other character inside a caption can be tested). */
public class CoreNLPTokens {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.setProperty("annotators", "tokenize,ssplit");
    props.setProperty("depparse.extradependencies", "MAXIMAL");
    props.setProperty("threads", "1");
    StanfordCoreNLP pipeline = new StanfordCoreNLP(props);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
    String line;
    while ((line = in.readLine()) != null) {
      Annotation ann = new Annotation((String) JSONValue.parse(line));
      pipeline.annotate(ann);
      JSONArray sents = new JSONArray();
      for (CoreMap s : ann.get(CoreAnnotations.SentencesAnnotation.class)) {
        JSONArray toks = new JSONArray();
        for (CoreLabel t : s.get(CoreAnnotations.TokensAnnotation.class)) toks.add(t.word());
        sents.add(toks);
      }
      out.println(sents.toJSONString());
    }
  }
}
