import edu.stanford.nlp.ling.CoreLabel;
import edu.stanford.nlp.ling.IndexedWord;
import edu.stanford.nlp.semgraph.SemanticGraph;
import edu.stanford.nlp.semgraph.SemanticGraphEdge;
import edu.stanford.nlp.semgraph.SemanticGraphFactory;
import edu.stanford.nlp.trees.GrammaticalStructure;
import edu.stanford.nlp.trees.LabeledScoredTreeFactory;
import edu.stanford.nlp.trees.PennTreeReader;
import edu.stanford.nlp.trees.PennTreebankLanguagePack;
import edu.stanford.nlp.trees.Tree;
import edu.stanford.nlp.trees.TreeNormalizer;
import edu.stanford.nlp.trees.UniversalEnglishGrammaticalStructure;
import edu.stanford.nlp.trees.UniversalSemanticHeadFinder;
import edu.stanford.nlp.util.Filters;
import org.json.simple.JSONArray;
import org.json.simple.JSONObject;
import java.io.*;
import java.nio.charset.StandardCharsets;

/** Reads one Penn tree per line (optionally "SENTENCE_INDEX<TAB>tree") and writes one JSON line per tree
 *  with CoreNLP's UD v1 basic and CCprocessed dependencies, built the way the parser annotator builds
 *  them: a fresh UniversalEnglishGrammaticalStructure per graph, the semantic head finder with the
 *  copula as dependent, every word accepted, no extra dependencies. */
public class UdFromTrees {
  static JSONArray edges(SemanticGraph g) {
    JSONArray out = new JSONArray();
    for (SemanticGraphEdge e : g.edgeListSorted()) {
      JSONArray d = new JSONArray();
      d.add(e.getRelation().toString()); d.add(e.getGovernor().index()); d.add(e.getDependent().index());
      out.add(d);
    }
    for (IndexedWord r : g.getRoots()) {
      JSONArray d = new JSONArray(); d.add("root"); d.add(0); d.add(r.index()); out.add(d);
    }
    return out;
  }

  static Tree read(String text, int sentIndex) throws IOException {
    PennTreeReader reader = new PennTreeReader(new StringReader(text),
        new LabeledScoredTreeFactory(CoreLabel.factory()), new TreeNormalizer());
    Tree tree = reader.readTree();
    if (sentIndex >= 0) {
      for (Tree leaf : tree.getLeaves()) ((CoreLabel) leaf.label()).setSentIndex(sentIndex);
    }
    return tree;
  }

  static GrammaticalStructure structure(String text, int sentIndex) throws IOException {
    PennTreebankLanguagePack tlp = new PennTreebankLanguagePack();
    return new UniversalEnglishGrammaticalStructure(read(text, sentIndex), Filters.acceptFilter(),
        new UniversalSemanticHeadFinder(tlp, true));
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
    String line;
    while ((line = in.readLine()) != null) {
      int sentIndex = -1;
      String text = line;
      int tab = line.indexOf('\t');
      if (tab >= 0) { sentIndex = Integer.parseInt(line.substring(0, tab)); text = line.substring(tab + 1); }
      JSONObject o = new JSONObject();
      try {
        o.put("basic", edges(SemanticGraphFactory.generateUncollapsedDependencies(structure(text, sentIndex), GrammaticalStructure.Extras.NONE)));
        o.put("ccprocessed", edges(SemanticGraphFactory.generateCCProcessedDependencies(structure(text, sentIndex), GrammaticalStructure.Extras.NONE)));
      } catch (RuntimeException ex) {
        o.put("error", ex.toString());
      }
      out.println(o.toJSONString());
    }
  }
}
