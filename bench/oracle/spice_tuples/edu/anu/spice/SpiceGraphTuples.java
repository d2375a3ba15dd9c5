package edu.anu.spice;

import edu.stanford.nlp.international.Language;
import edu.stanford.nlp.ling.CoreAnnotations;
import edu.stanford.nlp.ling.CoreLabel;
import edu.stanford.nlp.ling.IndexedWord;
import edu.stanford.nlp.pipeline.Annotation;
import edu.stanford.nlp.semgraph.SemanticGraph;
import edu.stanford.nlp.semgraph.SemanticGraphCoreAnnotations;
import edu.stanford.nlp.trees.GrammaticalRelation;
import edu.stanford.nlp.util.ArrayCoreMap;
import edu.stanford.nlp.util.CoreMap;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.json.simple.JSONArray;
import org.json.simple.JSONObject;
import org.json.simple.parser.JSONParser;

/**
 * SPICE's rules on given graphs, no parser involved. Reads one JSON object per line,
 * {"sentences": [{"nodes": [[index, copy, word, tag, lemma], ...], "edges": [[rel, [gov, copy], [dep, copy]], ...],
 * "roots": [[index, copy], ...]}, ...]}, builds each sentence's SemanticGraph in that order (nodes, then edges,
 * then roots; node hashes carry the sentence index as in SPICE's pipeline) and writes one JSON line per input:
 * the raw tuples SpiceParser.parseAnnotation returns, in their order.
 */
public class SpiceGraphTuples {
  static int num(Object o) {
    return ((Number) o).intValue();
  }

  @SuppressWarnings("deprecation")
  public static void main(String[] args) throws Exception {
    final SpiceParser parser = new SpiceParser(null, 1, true);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
    JSONParser json = new JSONParser();
    // Load what the enhancer and the rules load on first use (pronoun dictionaries) up front.
    Annotation warm = new Annotation("");
    warm.set(CoreAnnotations.SentencesAnnotation.class, new ArrayList<CoreMap>());
    parser.parseAnnotation(warm);
    edu.stanford.nlp.scenegraph.SemanticGraphEnhancer.resolvePronouns(new SemanticGraph());
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      JSONObject doc = (JSONObject) json.parse(line);
      List<CoreMap> sentences = new ArrayList<>();
      int si = 0;
      for (Object so : (JSONArray) doc.get("sentences")) {
        JSONObject s = (JSONObject) so;
        Map<String, IndexedWord> nodes = new HashMap<>();
        Map<Integer, IndexedWord> originals = new HashMap<>();
        SemanticGraph g = new SemanticGraph();
        for (Object no : (JSONArray) s.get("nodes")) {
          JSONArray n = (JSONArray) no;
          int index = num(n.get(0));
          int copy = num(n.get(1));
          IndexedWord w;
          if (copy == 0) {
            CoreLabel label = new CoreLabel();
            label.setWord((String) n.get(2));
            label.setValue((String) n.get(2));
            label.setOriginalText((String) n.get(2));
            label.setTag((String) n.get(3));
            label.setLemma((String) n.get(4));
            label.setIndex(index);
            label.setSentIndex(si);
            w = new IndexedWord(label);
            originals.put(index, w);
          } else {
            w = originals.get(index).makeSoftCopy(copy);
          }
          nodes.put(index + "/" + copy, w);
          g.addVertex(w);
        }
        for (Object eo : (JSONArray) s.get("edges")) {
          JSONArray e = (JSONArray) eo;
          JSONArray gv = (JSONArray) e.get(1);
          JSONArray dp = (JSONArray) e.get(2);
          String name = (String) e.get(0);
          GrammaticalRelation rel = GrammaticalRelation.valueOf(Language.UniversalEnglish, name);
          if (!rel.toString().equals(name)) {
            // a name valueOf reads differently ("nmod:in_front_of"): a relation of exactly that name
            rel = new GrammaticalRelation(Language.UniversalEnglish, name, name, GrammaticalRelation.DEPENDENT);
          }
          g.addEdge(nodes.get(num(gv.get(0)) + "/" + num(gv.get(1))), nodes.get(num(dp.get(0)) + "/" + num(dp.get(1))), rel, 1.0, false);
        }
        for (Object ro : (JSONArray) s.get("roots")) {
          JSONArray r = (JSONArray) ro;
          g.addRoot(nodes.get(num(r.get(0)) + "/" + num(r.get(1))));
        }
        CoreMap sentence = new ArrayCoreMap();
        sentence.set(SemanticGraphCoreAnnotations.CollapsedCCProcessedDependenciesAnnotation.class, g);
        sentences.add(sentence);
        si++;
      }
      final Annotation ann = new Annotation("");
      ann.set(CoreAnnotations.SentencesAnnotation.class, sentences);
      // The jar's pronoun search loops forever on some cyclic graphs: give each document 5 s.
      final Object[] result = new Object[1];
      Thread worker = new Thread(() -> {
        try {
          result[0] = parser.parseAnnotation(ann);
        } catch (Throwable ex) {
          result[0] = ex.toString();
        }
      });
      worker.setDaemon(true);
      worker.start();
      worker.join(5000);
      if (worker.isAlive()) {
        worker.stop();
        result[0] = "timeout";
      }
      if (result[0] instanceof SpiceParser.ProposedTuples) {
        JSONArray raw = new JSONArray();
        for (ArrayList<String> t : ((SpiceParser.ProposedTuples) result[0]).tuples) {
          JSONArray tt = new JSONArray();
          tt.addAll(t);
          raw.add(tt);
        }
        out.println(raw.toJSONString());
      } else {
        JSONObject err = new JSONObject();
        err.put("error", String.valueOf(result[0]));
        out.println(err.toJSONString());
      }
    }
  }
}
