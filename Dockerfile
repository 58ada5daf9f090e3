# alloclab on Debian 12, built from this repository with Debian packages only (scripts/deps.sh
# lists them; nothing is downloaded at build time). The image measures with the binary it built:
#   docker build -t alloclab .
#   docker run --rm -v "$PWD/results:/results" alloclab run --quick --out /results
# deploy/ runs it as shards (Kubernetes Indexed Job, Slurm array, CI matrix): docs/fleet.md.
FROM debian:12
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /src
# The package lists first, so a source change does not reinstall them.
# dlmalloc.c comes out of Debian's emscripten .deb here too, while the lists are present.
COPY scripts/deps.sh scripts/fetch-dlmalloc.sh scripts/
RUN source scripts/deps.sh \
 && alloclab_ensure_packages "${ALLOCLAB_BUILD_PACKAGES[@]}" "${ALLOCLAB_MALLOC_PACKAGES[@]}" \
      "${ALLOCLAB_LOAD_PACKAGES[@]}" "${ALLOCLAB_SIMULATION_PACKAGES[@]}" \
 && alloclab_ensure_dlmalloc_source \
 && rm -rf /var/lib/apt/lists/*
COPY . .
# Release only: the lab refuses to publish numbers from any other build.
RUN cmake --preset release >/dev/null \
 && cmake --build --preset release -j "$(nproc)" --target alloclab_cli \
 && ln -s /src/build/release/alloclab /usr/local/bin/alloclab
WORKDIR /results
ENTRYPOINT ["alloclab"]
CMD ["--help"]
