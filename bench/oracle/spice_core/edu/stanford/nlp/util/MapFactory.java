package edu.stanford.nlp.util;

/**
 * Test-time stand-in for the CoreNLP class of this name, which SPICE's SceneGraph names but
 * whose maps it never touches. Only what spice-1.0.jar links against is provided.
 */
public class MapFactory<K, V> implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  public static <K, V> MapFactory<K, V> hashMapFactory() {
    return new MapFactory<K, V>();
  }
}
